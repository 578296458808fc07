// Prints VmHWM, VmRSS, RssAnon and RssFile of the process at exit to stderr
// (docs/benchmarks.md, session 15). Build: gcc -shared -fPIC -O2 -o rss-at-exit.so scripts/bench/rss-at-exit.c
// Use: LD_PRELOAD=$PWD/rss-at-exit.so zut ... -p hi
#include <stdio.h>
#include <string.h>
__attribute__((destructor)) static void dump(void) {
  FILE *f = fopen("/proc/self/status", "r"); char l[256]; char out[512] = "";
  if (!f) return;
  while (fgets(l, sizeof l, f)) {
    if (!strncmp(l, "VmHWM", 5) || !strncmp(l, "RssAnon", 7) || !strncmp(l, "RssFile", 7) || !strncmp(l, "VmRSS", 5)) { l[strlen(l)-1] = ' '; strcat(out, l); }
  }
  fclose(f);
  fprintf(stderr, "%s\n", out);
}
