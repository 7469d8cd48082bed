// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/btf.h>
#include <bpf/bpf.h>

#include "trace/fentry_probe.h"
#include "lib/util.h"

/* Bytes after a btf_type's 12 for its kind, or -1 for a kind not known here. */
static long btf_extra(const struct btf_type *t)
{
	unsigned vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT: return 4;
	case BTF_KIND_ARRAY: return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM: return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO: return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR: return sizeof(struct btf_var);
	case BTF_KIND_DATASEC: return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG: return sizeof(struct btf_decl_tag);
	case BTF_KIND_ENUM64: return (long)vlen * sizeof(struct btf_enum64);
	case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	}
	return -1;
}

int btf_type_id(const void *data, size_t len, unsigned kind, const char *name)
{
	const struct btf_header *h = data;

	if (len < sizeof(*h) || h->magic != BTF_MAGIC || h->hdr_len < sizeof(*h) || h->hdr_len > len)
		return -EINVAL;
	const char *body = (const char *)data + h->hdr_len;
	size_t blen = len - h->hdr_len;
	if ((size_t)h->type_off + h->type_len > blen || (size_t)h->str_off + h->str_len > blen)
		return -EINVAL;
	const char *types = body + h->type_off, *strs = body + h->str_off;
	size_t off = 0, nlen = strlen(name);
	int id = 1;

	while (off + sizeof(struct btf_type) <= h->type_len) {
		const struct btf_type *t = (const void *)(types + off);
		long extra = btf_extra(t);

		if (extra < 0)
			return -EINVAL;
		if (BTF_INFO_KIND(t->info) == kind && t->name_off + nlen < h->str_len &&
		    !memcmp(strs + t->name_off, name, nlen + 1))
			return id;
		off += sizeof(*t) + extra;
		id++;
	}
	return off == h->type_len ? -ENOENT : -EINVAL;
}

int btf_func_id(const void *data, size_t len, const char *name)
{
	return btf_type_id(data, len, BTF_KIND_FUNC, name);
}

/*
 * Return /sys/kernel/btf/vmlinux, mapped if the kernel allows it (v6.16+),
 * else read whole. Mapping avoids copying several megabytes. *mapped says
 * which was done, for btf_release.
 */
static char *vmlinux_btf(size_t *len, bool *mapped)
{
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf = NULL, *nb;
	size_t cap, n = 0;
	ssize_t r;

	*mapped = false;
	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && st.st_size > 0) {
		buf = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (buf != MAP_FAILED) {
			close(fd);
			*mapped = true;
			*len = st.st_size;
			return buf;
		}
	}
	/* Read: sized by stat when it says, grown when it does not. */
	cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 8 << 20;
	if (!(buf = malloc(cap)))
		goto fail;
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += r;
		if (n == cap) {
			if (!(nb = realloc(buf, cap *= 2)))
				goto fail;
			buf = nb;
		}
	}
	if (r < 0)
		goto fail;
	close(fd);
	*len = n;
	return buf;
fail:
	close(fd);
	free(buf);
	return NULL;
}

/* The id of vmlinux's type name of this kind, -ENOENT, or -EINVAL if vmlinux BTF cannot be read or walked. */
static int vmlinux_type_id(unsigned kind, const char *name)
{
	size_t len;
	bool mapped;
	char *btf = vmlinux_btf(&len, &mapped);
	int id = btf ? btf_type_id(btf, len, kind, name) : -EINVAL;

	if (mapped)
		munmap(btf, len);
	else
		free(btf);
	return id;
}

int vmlinux_has_struct(const char *name)
{
	int id = vmlinux_type_id(BTF_KIND_STRUCT, name);

	return id > 0 ? 1 : id == -ENOENT ? 0 : id;
}

int fexit_probe(const char *name)
{
	int id = vmlinux_type_id(BTF_KIND_FUNC, name);

	if (id < 0) {
		cgs_debug("fexit probe: %s not found in vmlinux BTF (%s): loading for real instead", name, strerror(-id));
		return 1;
	}
	/* r0 = 0; exit */
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FEXIT, .attach_btf_id = id);
	int fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "cgs_probe", "GPL", insns, 2, &opts);

	if (fd < 0)
		return fd; /* libbpf 1.x: -errno */
	close(fd);
	return 0;
}
