/* One unreadable place, many functions after it: tree-sitter's recovery
 * read everything from `else if` under `#ifdef` (zlib's gzlib.c) to the
 * end of the file as one ERROR, so every function after it was left as
 * written. A second reading splits that part into its functions. Also
 * `* ZEXPORT name(`: a macro word between a return type's `*` and the
 * name. */
#include <stdio.h>
#include <string.h>

#define local static
#define ZEXPORT

typedef struct {
    int fd, mode;
} state_t;

local void reset(state_t *s) {
    s->mode = 0;
}

local int open_state(state_t *s, int fd) {
    if (fd == -1)
        s->fd = 3;
#ifdef WIDECHAR
    else if (fd == -2)
        s->fd = 4;
#endif
    else
        s->fd = fd;
    reset(s);
    return s->fd;
}

#ifdef WIDECHAR
int ZEXPORT open_wide(state_t *s) {
    return open_state(s, -2);
}
#endif

int ZEXPORT set_mode(state_t *s, int mode) {
    int i;
    for (i = 0; i < mode; i++) /* @loop set_mode */
        s->mode++;
    return s->mode;
}

const char * ZEXPORT describe(const state_t *s) {
    return s->mode > 1 ? "many" : "few";
}

int main(void) {
    state_t s;
    int r = open_state(&s, -1);
#ifdef WIDECHAR
    r += open_wide(&s);
#endif
    r += set_mode(&s, 2);
    printf("%d %s\n", r, describe(&s));
    return strlen(describe(&s)) == 4 ? 0 : 1;
}
