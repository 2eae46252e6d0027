/* version.c - which format and container libraries libckpt runs on. */
#include "ckpt.h"
#include "h5.h"

#include <archive.h>
#include <stdio.h>

const char *ckpt_versions(void)
{
	static char text[160];
	unsigned major = 0, minor = 0, release = 0;

	H5get_libversion(&major, &minor, &release);
	snprintf(text, sizeof text, "HDF5 %u.%u.%u, %s", major, minor, release,
	         archive_version_string());
	return text;
}
