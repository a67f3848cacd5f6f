/* User events in profiles (tests/e2e/user_events.rs), --regions functions.
 * Expected, merged over the parent and its forked child:
 *   main;setup  "size":     3 events, min -50.5, max 300, sum 349.5
 *   main;solve  "residual": 12 events (10 parent, 2 child), values 2^-it
 *               for it = 0..11: min 2^-11, max 1, sum 2 - 2^-11
 *   main        "phase":    2 events (parent, child), values 1 and 2
 *   main        "name0".."name299": the first 253 names (256 minus the
 *               three above) get a slot, 47 events are recorded nowhere
 *               (parent only, after the child ended).
 * Every value is exact in binary, so the sums are exact too. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

void regio_event(const char *name, double value);

static void setup(void) {
    regio_event("size", 100);
    regio_event("size", 300);
    regio_event("size", -50.5);
}

static void solve(int it) { regio_event("residual", 1.0 / (double)(1 << it)); }

int main(void) {
    setup();
    for (int it = 0; it < 10; it++)
        solve(it);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        solve(10);
        solve(11);
        regio_event("phase", 2);
        return 0;
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || status != 0)
        return 3;
    regio_event("phase", 1);
    char name[16];
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "name%d", i);
        regio_event(name, i);
    }
    printf("done\n");
    return 0;
}
