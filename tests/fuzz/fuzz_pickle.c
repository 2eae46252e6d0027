/* libFuzzer: the restricted unpickler on any bytes: a pickle loads or
 * fails with one line (never a read past its bytes, never a global outside
 * torch.save's); what loads is written again by the pickle writer (its
 * tensors as None) and must load again.  Seeds: the data.pkl of small
 * files torch.save wrote, and their legacy pickles. */
#include <stdlib.h>
#include <string.h>

#include "lib/ckpt.h"
#include "lib/pickle.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static int as_none(void *user, struct ckpt_pk_out *o, const ckpt_pk *v)
{
	(void)user, (void)v;
	ckpt_pk_op(o, 'N');
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	ckpt_pk_doc *d = ckpt_pk_doc_new(), *again = ckpt_pk_doc_new();
	struct ckpt_pk_out o = {0};
	ckpt_pk *root, *back;
	size_t used;
	int rc;

	if (!d || !again)
		abort();
	rc = ckpt_pk_load(d, "fuzz", data, size, &root, &used);
	if (rc < 0 && strchr(ckpt_errmsg(), '\n'))
		abort();
	if (rc == 0) {
		if (used > size)
			abort();
		ckpt_pk_op(&o, 0x80);
		ckpt_pk_op(&o, 2);
		/* (a cycle: too deep to write) */
		if (ckpt_pk_put_value(&o, root, as_none, NULL, NULL) == 0) {
			ckpt_pk_op(&o, '.');
			if (!o.b.failed && ckpt_pk_load(again, "again", o.b.p, o.b.n, &back, &used) != 0)
				abort();
		}
	}
	ckpt_pk_out_free(&o);
	ckpt_pk_doc_free(d);
	ckpt_pk_doc_free(again);
	return 0;
}
