// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * extspan.c - host spans built outside the process they describe: an eBPF
 * collector (tools/bpf, `npuprof record --bpf`) builds struct
 * npuprof_span_rec records from USDT probes, uprobes and tracepoints of
 * another process and adds them here to its own session, next to the
 * device records that session reads. They are stored exactly as the
 * library's own spans, so the merge, the reports and the exports read them
 * unchanged.
 *
 * Label strings get ids from their own range (bit 31 set), so that they
 * never meet the ids span.c gives the labels of the session's process.
 */
#include <errno.h>
#include <string.h>

#include "compiler.h"
#include "spans.h"
#include "trace_format.h"

#define NPF_EXT_STRING_BASE	0x80000000u
#define NPF_EXT_LABEL_MAX	255

static uint32_t npf_ext_next_string;

NPUPROF_EXPORT
int npuprof_session_add_span(struct npuprof_session *sess,
			     const struct npuprof_span_rec *rec,
			     const char *label)
{
	char text[NPF_EXT_LABEL_MAX + 1];
	struct npuprof_span_rec r;
	struct npf_item_string st;
	size_t len;
	int ret;

	if (!sess || !rec || !rec->kind || rec->kind > NPUPROF_SPAN_KIND_MAX ||
	    rec->end_ns < rec->start_ns || !rec->span_id)
		return -EINVAL;
	r = *rec;
	/* ids of strings and models are this process's, not the span's */
	r.name_id = 0;
	r.flags &= ~NPUPROF_SPAN_F_MODEL;
	if (label) {
		len = strnlen(label, NPF_EXT_LABEL_MAX);
		st.id = NPF_EXT_STRING_BASE |
			__atomic_add_fetch(&npf_ext_next_string, 1,
					   __ATOMIC_RELAXED);
		st.len = (uint32_t)len;
		/* a STRING item holds the text and its NUL */
		memcpy(text, label, len);
		text[len] = '\0';
		ret = npf_session_add_ext(sess, NPF_ITEM_STRING, &st,
					  sizeof(st), text, len + 1);
		if (ret)
			return ret;
		r.name_id = st.id;
	}
	return npf_session_add_ext(sess, NPF_ITEM_SPAN, &r, sizeof(r), NULL, 0);
}

NPUPROF_EXPORT
int npuprof_session_add_thread(struct npuprof_session *sess, int32_t pid,
			       int32_t tid, const char *name)
{
	struct npf_item_thread t;

	if (!sess || !name || tid <= 0)
		return -EINVAL;
	memset(&t, 0, sizeof(t));
	t.pid = pid;
	t.tid = tid;
	strncpy(t.name, name, sizeof(t.name) - 1);
	return npf_session_add_ext(sess, NPF_ITEM_THREAD, &t, sizeof(t), NULL,
				   0);
}

NPUPROF_EXPORT
int npuprof_session_add_meta(struct npuprof_session *sess, const char *key,
			     const char *value)
{
	if (!sess || !key || !*key || !value)
		return -EINVAL;
	return npf_session_add_ext(sess, NPF_ITEM_META, key, strlen(key) + 1,
				   value, strlen(value) + 1);
}
