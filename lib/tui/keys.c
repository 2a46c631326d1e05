// SPDX-License-Identifier: GPL-2.0
/* What the keys of aperture top do to its screen (lib/tui/screen.h). */
#include "tui/screen.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tui/top_live.h"
#include "tui/ui_term.h"

int ap_top_screen__set_order(struct ap_top_screen *sc, const char *name)
{
	int i;

	for (i = 0; i < sc->nr_sorts; i++) {
		if (!strcmp(sc->view->sort_names[i], name)) {
			sc->r.top_sort = i;
			return 0;
		}
	}
	return -EINVAL;
}

static void scroll(struct ap_top_screen *sc, long by)
{
	sc->offset += by;
	if (sc->offset < 0)
		sc->offset = 0;
	/* the upper bound is clamped by the layout */
}

/* typing a filter: Enter applies it, Esc cancels */
static void prompt_key(struct ap_top_screen *sc, int key, int *rerender)
{
	switch (key) {
	case AP_KEY_ENTER:
		sc->input[sc->input_len] = '\0';
		snprintf(sc->filter, sizeof(sc->filter), "%s", sc->input);
		sc->prompt = 0;
		sc->offset = 0;
		*rerender = 1;
		break;
	case AP_KEY_ESC:
		sc->prompt = 0;
		break;
	case AP_KEY_BACKSPACE:
		if (sc->input_len)
			sc->input_len--;
		break;
	default:
		if (key >= 0x20 && key < 0x7f &&
		    sc->input_len + 1 < sizeof(sc->input))
			sc->input[sc->input_len++] = (char)key;
	}
}

int ap_top_screen__key(struct ap_top_screen *sc, int key, uint64_t now_ns,
		       int *rerender, int *redraw)
{
	*redraw = 1;
	if (sc->help) {
		sc->help = 0;
		return 0;
	}
	if (sc->prompt) {
		prompt_key(sc, key, rerender);
		return 0;
	}
	switch (key) {
	case 'q':
	case 'Q':
		return 1;
	case 'p':
	case 'P':
		sc->paused = !sc->paused;
		ap_top__set_paused(sc->live, sc->paused);
		if (!sc->paused)
			ap_top__restart_interval(sc->live, now_ns);
		break;
	case 's':
	case 'S':
		if (sc->nr_sorts) {
			sc->r.top_sort = (sc->r.top_sort + 1) % sc->nr_sorts;
			sc->offset = 0;
			*rerender = 1;
		} else {
			snprintf(sc->note, sizeof(sc->note),
				 "the %s view has one order", sc->view->name);
		}
		break;
	case 'k':
	case 'K':
		sc->r.user_only = !sc->r.user_only;
		*rerender = 1;
		break;
	case 'c':
	case 'C':
		sc->r.hide_comm = !sc->r.hide_comm;
		*rerender = 1;
		break;
	case '/':
		sc->prompt = 1;
		sc->input_len = strlen(sc->filter);
		memcpy(sc->input, sc->filter, sc->input_len);
		break;
	case 'h':
	case 'H':
	case '?':
		sc->help = 1;
		break;
	case AP_KEY_UP:
		scroll(sc, -1);
		break;
	case AP_KEY_DOWN:
		scroll(sc, 1);
		break;
	case AP_KEY_PGUP:
		scroll(sc, -(sc->page > 1 ? sc->page : 1));
		break;
	case AP_KEY_PGDN:
		scroll(sc, sc->page > 1 ? sc->page : 1);
		break;
	case AP_KEY_HOME:
		sc->offset = 0;
		break;
	case AP_KEY_END:
		sc->offset = 1L << 40;	/* clamped to the last page */
		break;
	case 0x0c:			/* Ctrl-L */
		break;
	default:
		*redraw = 0;
	}
	return 0;
}
