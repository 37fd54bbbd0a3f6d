#include "embed.h"

#include <string.h>

const char *embed_get(const char *name)
{
	const struct embedded *e;
	for (e = embedded_files; e->name; e++)
		if (!strcmp(e->name, name))
			return e->data;
	return NULL;
}
