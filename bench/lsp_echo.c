/* The floor of an LSP request over stdio: a server that does nothing but read each framed
 * message and, for a request, write back a null result with its id. bench/editor_bench.py
 * runs it beside `nib serve` and the live servers, through the same client, so that each
 * server's latency can be read against what the transport and the client cost alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  char line[512];
  for (;;) {
    long length = -1;
    while (fgets(line, sizeof line, stdin)) {
      if (!strcmp(line, "\r\n") || !strcmp(line, "\n")) break;
      if (!strncasecmp(line, "Content-Length:", 15)) length = strtol(line + 15, NULL, 10);
    }
    if (length < 0 || feof(stdin)) return 0;
    char* body = malloc((size_t)length + 1);
    if (!body || fread(body, 1, (size_t)length, stdin) != (size_t)length) return 0;
    body[length] = 0;
    /* A request has an "id" and a "method"; a notification has no id. The id is echoed as
     * written (a number or a string), up to the next ',' or '}'. */
    const char* id = strstr(body, "\"id\":");
    if (id && strstr(body, "\"method\"")) {
      id += 5;
      while (*id == ' ') ++id;
      size_t n = strcspn(id, ",}");
      int exitNow = strstr(body, "\"method\": \"exit\"") || strstr(body, "\"method\":\"exit\"");
      char reply[256];
      int m = snprintf(reply, sizeof reply, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"result\":null}", (int)(n > 64 ? 64 : n), id);
      printf("Content-Length: %d\r\n\r\n%s", m, reply);
      fflush(stdout);
      if (exitNow) return 0;
    } else if (strstr(body, "\"exit\"")) {
      return 0;
    }
    free(body);
  }
}
