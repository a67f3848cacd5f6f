/* Trace mode end to end (tests/e2e/trace.rs): nested calls, a run-time
 * mask change and user events. Expected (with --regions functions):
 *   leaf: 30000 + 10 calls recorded (100 made while the mask is "none")
 *   mid:  3000 calls, each calling leaf 10 times (enough records to
 *         flush a 64 KiB trace buffer)
 *   two mask events in main's thread trace;
 *   user event "progress" 10 times, values 0, 300, ..., 2700. */
#include <stdio.h>

int regio_set_events(const char *list);
void regio_event(const char *name, double value);

static volatile double sink;

static void leaf(int i) { sink += i * 0.5; }

static void mid(int n) {
    for (int i = 0; i < 10; i++)
        leaf(n + i);
}

int main(void) {
    for (int i = 0; i < 3000; i++) {
        if (i % 300 == 0)
            regio_event("progress", i);
        mid(i);
    }
    if (regio_set_events("none") != 0)
        return 2;
    for (int i = 0; i < 100; i++)
        leaf(i);
    if (regio_set_events("all") != 0)
        return 2;
    for (int i = 0; i < 10; i++)
        leaf(i);
    printf("%.1f\n", sink);
    return 0;
}
