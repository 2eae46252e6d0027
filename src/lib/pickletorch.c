/* pickletorch.c - the globals torch.save writes, and what their calls
 * make as data (pickleint.h): tensors rebuilt from storages, Parameters,
 * OrderedDicts, sets, protocol 2's bytes; the others' calls kept as calls.
 * Nothing is called. */
#include "pickle.h"
#include "pickleint.h"

#include <stdlib.h>
#include <string.h>

static const char *const allowed[] = {
	"collections.OrderedDict", "torch._utils._rebuild_tensor",
	"torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_parameter",
	"torch._utils._rebuild_parameter_with_state", "torch._utils._rebuild_qtensor",
	"torch._utils._rebuild_sparse_tensor", "torch._utils._rebuild_sparse_csr_tensor",
	"torch._utils._rebuild_meta_tensor_no_storage", "torch._utils._rebuild_wrapper_subclass",
	"torch._tensor._rebuild_from_type_v2", "torch.nn.parameter.Parameter", "torch.Tensor",
	"torch.Size", "torch.device", "torch.serialization._get_layout", "torch.sparse_coo",
	"torch.strided", "torch.per_tensor_affine", "torch.per_channel_affine",
	"torch.storage.UntypedStorage", "torch.UntypedStorage", "_codecs.encode",
	"builtins.set", "builtins.frozenset",
	/* storage classes */
	"torch.FloatStorage", "torch.DoubleStorage", "torch.HalfStorage", "torch.BFloat16Storage",
	"torch.LongStorage", "torch.IntStorage", "torch.ShortStorage", "torch.CharStorage",
	"torch.ByteStorage", "torch.BoolStorage", "torch.ComplexFloatStorage",
	"torch.ComplexDoubleStorage", "torch.QInt8Storage", "torch.QUInt8Storage",
	"torch.QInt32Storage", "torch.QUInt4x2Storage", "torch.QUInt2x4Storage",
	"torch.Float8_e4m3fnStorage", "torch.Float8_e5m2Storage", "torch.Float8_e4m3fnuzStorage",
	"torch.Float8_e5m2fnuzStorage", "torch.UInt16Storage", "torch.UInt32Storage",
	"torch.UInt64Storage",
	/* dtypes */
	"torch.float16", "torch.bfloat16", "torch.float32", "torch.float64", "torch.int8",
	"torch.int16", "torch.int32", "torch.int64", "torch.uint8", "torch.uint16",
	"torch.uint32", "torch.uint64", "torch.bool", "torch.complex32", "torch.complex64",
	"torch.complex128", "torch.float8_e4m3fn", "torch.float8_e5m2", "torch.qint8",
	"torch.quint8", "torch.qint32",
};

int ckpt_pk_allowed(const char *global)
{
	for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++)
		if (strcmp(allowed[i], global) == 0)
			return 1;
	return 0;
}

static int is(const ckpt_pk *v, const char *global)
{
	return v && v->kind == CKPT_PK_GLOBAL && strcmp(v->s, global) == 0;
}

/* _rebuild_tensor(_v2)(storage, offset, size, stride, ...) */
static ckpt_pk *tensor_value(ckpt_pk_doc *d, ckpt_pk *args)
{
	ckpt_pk *t = ckpt_pk_new(d, CKPT_PK_TENSOR), *off = ckpt_pk_arg(args, 1),
	        *grad = ckpt_pk_arg(args, 4);

	if (!t)
		return NULL;
	if (args->n < 4 || ckpt_pk_arg(args, 0)->kind != CKPT_PK_STORAGE || off->kind != CKPT_PK_INT) {
		t->refused = "a tensor rebuilt from other than a storage";
		return t;
	}
	t->i = off->i;
	t->grad = grad && grad->kind == CKPT_PK_BOOL && grad->i;
	if (ckpt_pk_add(t, args->item[0]) < 0 || ckpt_pk_add(t, args->item[2]) < 0 ||
	    ckpt_pk_add(t, args->item[3]) < 0)
		return NULL;
	return t;
}

/* _rebuild_parameter(data, requires_grad, hooks[, state]): data as a
 * Parameter */
static ckpt_pk *parameter_value(ckpt_pk_doc *d, ckpt_pk *args)
{
	ckpt_pk *data = ckpt_pk_arg(args, 0), *grad = ckpt_pk_arg(args, 1),
	        *t = ckpt_pk_new(d, CKPT_PK_TENSOR);

	if (!t)
		return NULL;
	if (!data || data->kind != CKPT_PK_TENSOR) {
		t->refused = "a parameter that holds no tensor";
		return t;
	}
	t->i = data->i;
	t->refused = data->refused;
	t->param = 1;
	t->grad = grad && grad->kind == CKPT_PK_BOOL && grad->i;
	for (size_t i = 0; i < data->n; i++)
		if (ckpt_pk_add(t, data->item[i]) < 0)
			return NULL;
	return t;
}

/* _rebuild_from_type_v2(func, type, args, state): func(*args) as type */
static ckpt_pk *from_type_value(ckpt_pk_doc *d, ckpt_pk *args)
{
	ckpt_pk *fn = ckpt_pk_arg(args, 0), *type = ckpt_pk_arg(args, 1),
	        *inner = ckpt_pk_arg(args, 2), *t;

	if (!fn || fn->kind != CKPT_PK_GLOBAL || !inner || inner->kind != CKPT_PK_TUPLE ||
	    !(is(type, "torch.Tensor") || is(type, "torch.nn.parameter.Parameter"))) {
		t = ckpt_pk_new(d, CKPT_PK_TENSOR);
		if (t)
			t->refused = "a tensor of a subclass of torch.Tensor";
		return t;
	}
	t = ckpt_pk_call(d, fn, inner);
	if (t && t->kind == CKPT_PK_TENSOR && is(type, "torch.nn.parameter.Parameter"))
		t->param = 1;
	return t;
}

/* _codecs.encode(text, "latin1"): protocol 2's bytes */
static ckpt_pk *encoded_value(ckpt_pk_doc *d, ckpt_pk *args)
{
	const ckpt_pk *text = ckpt_pk_arg(args, 0);
	ckpt_pk *v;
	size_t k = 0;

	if (!text || text->kind != CKPT_PK_STR || !(v = ckpt_pk_new(d, CKPT_PK_BYTES)) ||
	    !(v->s = malloc(text->len + 1)))
		return NULL;
	for (size_t i = 0; i < text->len; i++) {
		unsigned char c = (unsigned char)text->s[i];

		if (c >= 0x80 && (c & 0xfe) == 0xc2 && i + 1 < text->len)
			c = (unsigned char)((c & 0x03) << 6 | (text->s[++i] & 0x3f));
		else if (c >= 0x80)
			return NULL;
		v->s[k++] = (char)c;
	}
	v->len = k;
	return v;
}

static const struct {
	const char *fn, *what;
} refused_tensors[] = {
	{"torch._utils._rebuild_qtensor", "a quantized tensor"},
	{"torch._utils._rebuild_sparse_tensor", "a sparse tensor"},
	{"torch._utils._rebuild_sparse_csr_tensor", "a sparse tensor"},
	{"torch._utils._rebuild_meta_tensor_no_storage", "a tensor without storage (meta)"},
	{"torch._utils._rebuild_wrapper_subclass", "a tensor of a subclass of torch.Tensor"},
};

ckpt_pk *ckpt_pk_call(ckpt_pk_doc *d, ckpt_pk *fn, ckpt_pk *args)
{
	ckpt_pk *v;

	if (is(fn, "torch._utils._rebuild_tensor_v2") || is(fn, "torch._utils._rebuild_tensor"))
		return tensor_value(d, args);
	if (is(fn, "torch._utils._rebuild_parameter") ||
	    is(fn, "torch._utils._rebuild_parameter_with_state"))
		return parameter_value(d, args);
	if (is(fn, "torch._tensor._rebuild_from_type_v2"))
		return from_type_value(d, args);
	if (is(fn, "_codecs.encode"))
		return encoded_value(d, args);
	for (size_t i = 0; i < sizeof refused_tensors / sizeof *refused_tensors; i++)
		if (is(fn, refused_tensors[i].fn)) {
			if ((v = ckpt_pk_new(d, CKPT_PK_TENSOR)))
				v->refused = refused_tensors[i].what;
			return v;
		}
	if (is(fn, "collections.OrderedDict") && args->n == 0) {
		if ((v = ckpt_pk_new(d, CKPT_PK_DICT)))
			v->ordered = 1;
		return v;
	}
	if ((is(fn, "builtins.set") || is(fn, "builtins.frozenset")) && args->n <= 1 &&
	    (!args->n || args->item[0]->kind == CKPT_PK_LIST)) {
		v = ckpt_pk_new(d, is(fn, "builtins.set") ? CKPT_PK_SET : CKPT_PK_FROZENSET);
		for (size_t i = 0; v && args->n && i < args->item[0]->n; i++)
			if (ckpt_pk_add(v, args->item[0]->item[i]) < 0)
				return NULL;
		return v;
	}
	if (!(v = ckpt_pk_new(d, CKPT_PK_CALL)) || ckpt_pk_add(v, fn) < 0 || ckpt_pk_add(v, args) < 0)
		return NULL;
	return v;
}

