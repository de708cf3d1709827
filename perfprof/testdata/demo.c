#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
static inline __attribute__((always_inline)) unsigned mix(unsigned x) { return x * 2654435761u ^ (x >> 13); }
__attribute__((noinline)) unsigned hash_htlc(const char *s, int n) {
	unsigned h = 0; for (int i = 0; i < n; i++) h = mix(h + s[i]); return h;
}
__attribute__((noinline)) unsigned channel_tick(int rounds) {
	char buf[256]; unsigned acc = 0;
	for (int r = 0; r < rounds; r++) { memset(buf, r, sizeof buf); acc += hash_htlc(buf, sizeof buf); }
	return acc;
}
__attribute__((noinline)) void do_syscalls(void) { for (int i = 0; i < 100; i++) { FILE *f = fopen("/proc/self/stat", "r"); if (f) fclose(f); } }
int main(int argc, char **argv) {
	double secs = argc > 1 ? atof(argv[1]) : 2;
	pid_t c = argc > 2 ? 0 : fork();
	if (c == 0 && argc <= 2) { char *a[] = {"demo_child", argv[1], "child", NULL}; execv("/proc/self/exe", a); _exit(1); }
	time_t end = time(NULL) + (time_t)secs; unsigned acc = 0;
	while (time(NULL) < end) { acc += channel_tick(200); do_syscalls(); }
	printf("%u\n", acc);
	if (argc <= 2) waitpid(c, NULL, 0);
	return 0;
}
