/*
 * screen.c - the screen table and the stack of open screens, each with its own state (ui.h).
 */
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "ui.h"

static const struct screen_ops *const all_screens[SCR_COUNT] = {
#define SCREEN_PTR(id, ops, scope) [id] = &ops,
	SCREEN_LIST(SCREEN_PTR)
#undef SCREEN_PTR
};

static const enum key_scope scopes[SCR_COUNT] = {
#define SCREEN_SCOPE(id, ops, scope) [id] = scope,
	SCREEN_LIST(SCREEN_SCOPE)
#undef SCREEN_SCOPE
};

const struct screen_ops *screen_ops_of(enum screen_id id)
{
	return id < SCR_COUNT ? all_screens[id] : all_screens[SCR_BROWSER];
}

unsigned tui_open(struct tui *t, enum screen_id id)
{
	t->next_screen = id;
	return R_HANDLED | R_OPEN;
}

enum screen_id tui_top(const struct tui *t)
{
	return t->depth ? t->stack[t->depth - 1].id : SCR_BROWSER;
}

/* A screen's function, or its base's where it has none. */
#define OP(ops, f) ((ops)->f ? (ops)->f : (ops)->base ? (ops)->base->f : NULL)

enum key_scope screen_top_scope(const struct tui *t)
{
	return scopes[tui_top(t)];
}

void *screen_state(struct tui *t, enum screen_id id)
{
	for (int i = t->depth - 1; i >= 0; i--)
		if (t->stack[i].id == id)
			return t->stack[i].self;
	return NULL;
}

void screen_enter(struct tui *t)
{
	const struct screen *sc;

	if (!t->depth)
		return;
	sc = &t->stack[t->depth - 1];
	if (OP(sc->ops, enter))
		OP(sc->ops, enter)(t, sc->self);
}

static void screen_close(struct tui *t, struct screen *sc)
{
	if (OP(sc->ops, close))
		OP(sc->ops, close)(t, sc->self);
	free(sc->self);
	sc->self = NULL;
}

void screen_pop(struct tui *t)
{
	if (!t->depth)
		return;
	screen_close(t, &t->stack[t->depth - 1]);
	t->depth--;
}

void screen_open(struct tui *t, enum screen_id id)
{
	struct screen *sc;
	size_t size;

	for (int i = 0; i < t->depth; i++) {
		if (t->stack[i].id == id) {
			/* already open: go back to it */
			while (t->depth > i + 1)
				screen_pop(t);
			screen_enter(t);
			return;
		}
	}
	if (t->depth == (int)(sizeof(t->stack) / sizeof(t->stack[0]))) {
		/* full: the oldest but the first goes */
		screen_close(t, &t->stack[1]);
		memmove(t->stack + 1, t->stack + 2, sizeof(t->stack[0]) * (size_t)(t->depth - 2));
		t->depth--;
	}
	sc = &t->stack[t->depth++];
	sc->id = id;
	sc->ops = screen_ops_of(id);
	size = sc->ops->size ? sc->ops->size : sc->ops->base ? sc->ops->base->size : 0;
	sc->self = xcalloc(1, size ? size : 1);
	if (OP(sc->ops, open))
		OP(sc->ops, open)(t, sc->self);
	screen_enter(t);
}

void screen_draw(struct tui *t, struct rect area)
{
	const struct screen *sc;

	if (!t->depth)
		return;
	sc = &t->stack[t->depth - 1];
	OP(sc->ops, draw)(t, sc->self, area);
}

unsigned screen_key(struct tui *t, enum action a, int key)
{
	const struct screen *sc;
	unsigned res = 0;

	if (!t->depth)
		return 0;
	sc = &t->stack[t->depth - 1];
	if (sc->ops->key)
		res = sc->ops->key(t, sc->self, a, key);
	if (!(res & R_HANDLED) && sc->ops->base && sc->ops->base->key)
		res |= sc->ops->base->key(t, sc->self, a, key);
	return res;
}

int screen_can_find(const struct tui *t)
{
	return t->depth && OP(t->stack[t->depth - 1].ops, find);
}

int screen_find(struct tui *t, const struct search *s, int dir, int again, int *wrapped)
{
	const struct screen *sc;

	*wrapped = 0;
	if (!screen_can_find(t))
		return 0;
	sc = &t->stack[t->depth - 1];
	return OP(sc->ops, find)(t, sc->self, s, dir, again, wrapped);
}
