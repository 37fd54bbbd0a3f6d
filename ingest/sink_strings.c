/*
 * sink_strings: string interning. Each distinct string of a session is one row of `strings`; the map
 * keeps the current session's strings so each is looked up in the database at most once.
 */
#include "sink_int.h"
#include "nvtx_op.h"
#include "utf8.h"

#include <stdlib.h>
#include <string.h>

/* An open-addressing map from string to database id, for the current session. */
struct strmap_entry {
	char *s;
	size_t len;
	uint64_t hash;
	int64_t id;
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	return fnv1a(FNV1A_INIT, s, n) | 1;	/* never 0: 0 marks an empty slot */
}

void sink_strings_clear(struct sink *s)
{
	size_t i;
	for (i = 0; i < s->map_cap; i++)
		free(s->map[i].s);
	free(s->map);
	s->map = NULL;
	s->map_cap = s->map_used = 0;
	free(s->by_id);
	s->by_id = NULL;
	s->by_id_alloc = 0;
}

static void map_grow(struct sink *s)
{
	struct strmap_entry *old = s->map;
	size_t i, oldcap = s->map_cap, mask;
	s->map_cap = oldcap ? oldcap * 2 : 1024;
	s->map = xcalloc(s->map_cap, sizeof(*s->map));
	mask = s->map_cap - 1;
	for (i = 0; i < oldcap; i++) {
		size_t j;
		if (!old[i].hash)
			continue;
		j = old[i].hash & mask;
		while (s->map[j].hash)
			j = (j + 1) & mask;
		s->map[j] = old[i];
	}
	free(old);
}

/* Map v to id; the value of id (sink_string_value) when is_value (else v is a raw form repaired to it). */
static void map_put(struct sink *s, const char *v, size_t len, uint64_t h, int64_t id, int is_value)
{
	size_t j;
	if ((s->map_used + 1) * 2 > s->map_cap)
		map_grow(s);
	j = h & (s->map_cap - 1);
	while (s->map[j].hash)
		j = (j + 1) & (s->map_cap - 1);
	s->map[j].s = xstrndup(v, len);
	s->map[j].len = len;
	s->map[j].hash = h;
	s->map[j].id = id;
	s->map_used++;
	if (is_value && id >= 0 && (uint64_t)id < (1ULL << 31)) {
		size_t old = s->by_id_alloc;
		if ((size_t)id >= s->by_id_alloc) {
			ALLOC_GROW(s->by_id, (size_t)id + 1, s->by_id_alloc);
			memset(s->by_id + old, 0, (s->by_id_alloc - old) * sizeof(*s->by_id));
		}
		s->by_id[id] = s->map[j].s;
	}
}

static int64_t map_get(struct sink *s, const char *v, size_t len, uint64_t h)
{
	size_t j;
	if (!s->map_cap)
		return -1;
	j = h & (s->map_cap - 1);
	while (s->map[j].hash) {
		if (s->map[j].hash == h && s->map[j].len == len && !memcmp(s->map[j].s, v, len))
			return s->map[j].id;
		j = (j + 1) & (s->map_cap - 1);
	}
	return -1;
}

/*
 * A string that names one call, not a thing: the NVTX text torch.autograd.profiler.emit_nvtx gives each op
 * (its op_id makes every one unique), millions in a large session. Kept out of the map (its memory would
 * grow with the session): the database's index finds a repeat. bad: its repairs, counted when new.
 */
static int64_t sink_string_once(struct sink *s, const char *v, size_t len, size_t bad)
{
	int64_t id = s->next_string_id++;
	sqlite3_bind_int64(s->str_add_once, 1, s->session_id);
	sqlite3_bind_int64(s->str_add_once, 2, id);
	sqlite3_bind_text(s->str_add_once, 3, v, (int)len, SQLITE_STATIC);
	if (sink_step(s, s->str_add_once))
		return -1;
	if (sqlite3_changes(s->db)) {
		s->repairs[SINK_REPAIR_UTF8] += (int64_t)bad;	/* once per string of the session */
		return id;
	}
	s->next_string_id--;	/* (not used: ids stay what a spool's replay gives) */
	id = -1;	/* there already (another process of the session, or declared twice) */
	sqlite3_bind_int64(s->str_find, 1, s->session_id);
	sqlite3_bind_text(s->str_find, 2, v, (int)len, SQLITE_STATIC);
	if (sqlite3_step(s->str_find) == SQLITE_ROW)
		id = sqlite3_column_int64(s->str_find, 0);
	sqlite3_reset(s->str_find);
	return id < 0 ? error("strings: \"%.*s\" neither added nor found", (int)(len < 80 ? len : 80), v) : id;
}

/* The id of valid UTF-8 string v (hash h): the map's, the database's, or a new one; bad: its repairs, counted when new. */
static int64_t string_store(struct sink *s, const char *v, size_t len, uint64_t h, size_t bad)
{
	struct nvtx_op op;
	int64_t id = map_get(s, v, len, h);
	if (id >= 0)
		return id;
	if (nvtx_op_parse(v, len, &op))
		return sink_string_once(s, v, len, bad);
	if (!s->session_is_new) {
		sqlite3_bind_int64(s->str_find, 1, s->session_id);
		sqlite3_bind_text(s->str_find, 2, v, (int)len, SQLITE_STATIC);
		if (sqlite3_step(s->str_find) == SQLITE_ROW)
			id = sqlite3_column_int64(s->str_find, 0);
		sqlite3_reset(s->str_find);
	}
	if (id < 0) {
		id = s->next_string_id++;
		sqlite3_bind_int64(s->str_add, 1, s->session_id);
		sqlite3_bind_int64(s->str_add, 2, id);
		sqlite3_bind_text(s->str_add, 3, v, (int)len, SQLITE_STATIC);
		if (sink_step(s, s->str_add))
			return -1;
		s->repairs[SINK_REPAIR_UTF8] += (int64_t)bad;	/* once per string of the session */
	}
	map_put(s, v, len, h, id, 1);
	return id;
}

int64_t sink_string(struct sink *s, const char *v, size_t len)
{
	uint64_t h = hash_bytes(v, len);
	int64_t id = map_get(s, v, len, h);
	size_t bad;
	if (id >= 0)
		return id;
	if (s->spool) {	/* ids of its own, told to the writer before their first use (which repairs them) */
		id = s->next_string_id++;
		sink_spool_string(s, id, v, len);
		map_put(s, v, len, h, id, 1);
		return id;
	}
	if ((bad = utf8_invalid(v, len))) {	/* stored repaired; the raw form maps to the same id */
		struct buf fixed;
		buf_init(&fixed);
		utf8_repair(&fixed, v, len);
		id = string_store(s, fixed.s, fixed.len, hash_bytes(fixed.s, fixed.len), bad);
		buf_release(&fixed);
		if (id >= 0)
			map_put(s, v, len, h, id, 0);
		return id;
	}
	return string_store(s, v, len, h, 0);
}

const char *sink_string_value(struct sink *s, int64_t id)
{
	if (id < 0 || (size_t)id >= s->by_id_alloc)
		return NULL;
	return s->by_id[id];
}
