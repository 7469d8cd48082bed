// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* btf_func_id: walking raw BTF (vmlinux's format) to a function's type id. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <linux/btf.h>

#include "trace/fentry_probe.h"

/* info word: kind, vlen (the uapi header has only the accessors) */
#define BTF_INFO_ENC(kind, kflag, vlen) (((kflag) << 31) | ((kind) << 24) | (vlen))

/* Strings: "\0int\0s\0a\0b\0foo\0bar\0" */
static const char strs[] = "\0int\0s\0a\0b\0foo\0bar";
enum { S_INT = 1, S_S = 5, S_A = 7, S_B = 9, S_FOO = 11, S_BAR = 15 };

struct blob {
	struct btf_header h;
	unsigned char body[512];
	size_t len;
};

static void put(struct blob *b, const void *p, size_t n)
{
	memcpy(b->body + b->len, p, n);
	b->len += n;
}

/* [1] int, [2] struct s { int a, b; }, [3] proto int(int), [4] func foo, [5] func bar. */
static size_t make(struct blob *b, unsigned extra_kind)
{
	struct btf_type t;
	__u32 u = 32; /* the INT's encoding word: 32 bits */
	struct btf_member m = { S_A, 1, 0 };
	struct btf_param pa = { 0, 1 };

	memset(b, 0, sizeof(*b));
	t = (struct btf_type){ S_INT, BTF_INFO_ENC(BTF_KIND_INT, 0, 0), { 4 } };
	put(b, &t, sizeof(t)), put(b, &u, 4);
	t = (struct btf_type){ S_S, BTF_INFO_ENC(BTF_KIND_STRUCT, 0, 2), { 8 } };
	put(b, &t, sizeof(t)), put(b, &m, sizeof(m));
	m.name_off = S_B, m.offset = 32;
	put(b, &m, sizeof(m));
	t = (struct btf_type){ 0, BTF_INFO_ENC(BTF_KIND_FUNC_PROTO, 0, 1), { 1 } };
	put(b, &t, sizeof(t)), put(b, &pa, sizeof(pa));
	if (extra_kind) {
		t = (struct btf_type){ 0, BTF_INFO_ENC(extra_kind, 0, 0), { 0 } };
		put(b, &t, sizeof(t));
	}
	t = (struct btf_type){ S_FOO, BTF_INFO_ENC(BTF_KIND_FUNC, 0, 0), { 3 } };
	put(b, &t, sizeof(t));
	t = (struct btf_type){ S_BAR, BTF_INFO_ENC(BTF_KIND_FUNC, 0, 0), { 3 } };
	put(b, &t, sizeof(t));
	b->h = (struct btf_header){ .magic = BTF_MAGIC, .version = 1, .hdr_len = sizeof(b->h),
				    .type_off = 0, .type_len = b->len, .str_off = b->len, .str_len = sizeof(strs) };
	put(b, strs, sizeof(strs));
	return sizeof(b->h) + b->len;
}

Test(btf_func_id, finds_functions_by_name)
{
	struct blob b;
	size_t len = make(&b, 0);

	cr_assert_eq(btf_func_id(&b, len, "foo"), 4);
	cr_assert_eq(btf_func_id(&b, len, "bar"), 5);
	/* Names of other kinds are not functions; prefixes are not names. */
	cr_assert_eq(btf_func_id(&b, len, "s"), -ENOENT);
	cr_assert_eq(btf_func_id(&b, len, "int"), -ENOENT);
	cr_assert_eq(btf_func_id(&b, len, "fo"), -ENOENT);
	cr_assert_eq(btf_func_id(&b, len, "baz"), -ENOENT);
	/* A kind with no trailing data in between (a pointer) moves the ids along. */
	len = make(&b, BTF_KIND_PTR);
	cr_assert_eq(btf_func_id(&b, len, "foo"), 5);
}

Test(btf_func_id, refuses_what_it_cannot_walk)
{
	struct blob b;
	size_t len = make(&b, 0);

	cr_assert_eq(btf_func_id(&b, sizeof(b.h) - 1, "foo"), -EINVAL, "shorter than its header");
	b.h.magic = 0x9feb;
	cr_assert_eq(btf_func_id(&b, len, "foo"), -EINVAL, "byte-swapped magic");
	len = make(&b, 0);
	b.h.type_len += 4;
	cr_assert_eq(btf_func_id(&b, len, "baz"), -EINVAL, "types that do not end where their length says");
	len = make(&b, 0);
	cr_assert_eq(btf_func_id(&b, len - 10, "foo"), -EINVAL, "strings cut short");
	len = make(&b, 31); /* a kind this walker does not know */
	cr_assert_eq(btf_func_id(&b, len, "foo"), -EINVAL);
}

Test(btf_type_id, finds_each_kind_by_name)
{
	struct blob b;
	size_t len = make(&b, 0);

	cr_assert_eq(btf_type_id(&b, len, BTF_KIND_STRUCT, "s"), 2);
	cr_assert_eq(btf_type_id(&b, len, BTF_KIND_INT, "int"), 1);
	cr_assert_eq(btf_type_id(&b, len, BTF_KIND_FUNC, "bar"), 5);
	cr_assert_eq(btf_type_id(&b, len, BTF_KIND_STRUCT, "foo"), -ENOENT);
	cr_assert_eq(btf_type_id(&b, len, BTF_KIND_FUNC, "s"), -ENOENT);
}
