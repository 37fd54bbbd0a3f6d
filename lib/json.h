/*
 * json: a small, fast JSON parser for one line (or one object) at a time.
 *
 * json_parse() parses text in place: strings are unescaped inside the caller's buffer and NUL-terminated
 * there, so node strings point into `text` and stay valid until the caller reuses that buffer or calls
 * json_parse again on the same json_doc (which reuses its node array). Integers without fraction or
 * exponent are kept exactly as int64 (cJSON and other double-based parsers round above 2^53).
 * The caller owns the json_doc and frees it with json_doc_release.
 */
#ifndef GPUPROF_JSON_H
#define GPUPROF_JSON_H

#include <stddef.h>
#include <stdint.h>

enum json_type { J_NULL, J_FALSE, J_TRUE, J_INT, J_REAL, J_STRING, J_ARRAY, J_OBJECT };

struct jnode {
	const char *key;	/* member name when the parent is an object, else NULL */
	union {
		int64_t i;	/* J_INT */
		const char *s;	/* J_STRING: NUL-terminated; J_REAL: the number's text (len bytes) */
	} u;
	double num;		/* numeric value of J_INT and J_REAL */
	uint32_t len;		/* string or J_REAL text bytes, or number of children */
	uint32_t first;		/* index of the first child (arrays, objects) */
	uint32_t next;		/* index of the next sibling, 0 = none */
	uint8_t type;		/* enum json_type */
	uint8_t lazy;		/* J_ARRAY left unparsed (json_doc.lazy): u.s its text, first its bytes, len its
				   values (counted, not checked); read it with json_iter */
};

struct json_doc {
	struct jnode *nodes;	/* nodes[0] is the root after a successful parse */
	size_t n, alloc;
	const char *err;	/* static description of the first error */
	size_t err_off;		/* byte offset of the error in the text */
	const char *text;	/* the text parsed last */
	int lazy;		/* set by the caller: arrays that are members of the root object are left unparsed */
	int soft;		/* set by the caller: no memory for the nodes fails the parse (oom set) instead of
				   ending the program (util's out_of_memory) */
	int oom;		/* the error is that no memory was left for the nodes */
	int64_t nuls;		/* \u0000 escapes read since json_doc_init: each one is U+FFFD in the string
				   (a C string cannot hold a NUL); the reader counts them as repairs */
};

void json_doc_init(struct json_doc *d);
void json_doc_release(struct json_doc *d);

/*
 * How deep arrays and objects may nest: the parser recurses, and this bounds its stack (about 150 bytes a
 * level). Deeper is an error ("nested too deeply"). Real traces and wire lines nest under 10.
 */
#define JSON_MAX_DEPTH 512

/* Parse text[0..len) (text[len] must be writable; it becomes a NUL). Returns 0, or -1 with d->err set. */
int json_parse(struct json_doc *d, char *text, size_t len);

static inline const struct jnode *json_root(const struct json_doc *d)
{
	return &d->nodes[0];
}

/* First child of an array or object, or NULL. */
const struct jnode *json_first(const struct json_doc *d, const struct jnode *n);
/* Next sibling, or NULL. */
const struct jnode *json_next(const struct json_doc *d, const struct jnode *n);
/* Member `key` of object n, or NULL when absent or n is no object. */
const struct jnode *json_get(const struct json_doc *d, const struct jnode *n, const char *key);
/* Convenience: member as int64 (0 and returns -1 if missing or not an integer). */
int json_get_i64(const struct json_doc *d, const struct jnode *obj, const char *key, int64_t *out);
/* Member as string, or NULL. */
const char *json_get_str(const struct json_doc *d, const struct jnode *obj, const char *key);

/*
 * The values of a lazy array one at a time, each parsed when json_iter_next reaches it into a document of
 * its own (nodes for one value, not for the array): a batch line's columns cost memory for one value at
 * a time. Each array is to be read once (parsing unescapes its strings in place). json_iter_next returns
 * the next value, valid until the next call, or NULL at the end or on an error (it->one.err, err_off from
 * the start of the text json_parse parsed; it->one.oom). The caller releases it with json_iter_release.
 * The \u0000 escapes of the values read add up in it->one.nuls.
 */
struct json_iter {
	struct json_doc one;	/* the value last read */
	char *p, *end;		/* the array's unread text */
	const char *start;	/* the text of the whole document, for error offsets */
	int done;
};
void json_iter_init(struct json_iter *it, const struct json_doc *d, const struct jnode *array);
const struct jnode *json_iter_next(struct json_iter *it);
void json_iter_release(struct json_iter *it);

/*
 * Append s as a JSON string literal (quoted, escaped) to a struct buf; an invalid UTF-8 sequence in s is
 * written as U+FFFD (utf8.h), so the text is valid UTF-8 whatever s holds.
 */
struct buf;
void json_quote(struct buf *b, const char *s, size_t n);



/*
 * The number n times 10^digits, rounded to the nearest integer (halves away from zero), computed from
 * its decimal text so nothing is lost to binary floating point: microseconds "1712195495505543.2" with
 * digits 3 give exactly 1712195495505543200 ns. 0, or -1 when n is no number or the result overflows.
 */
int json_decimal_scaled(const struct jnode *n, int digits, int64_t *out);

/* Append node n (and its children) as compact JSON text. */
void json_write(struct buf *b, const struct json_doc *d, const struct jnode *n);
#endif
