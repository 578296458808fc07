#!/bin/sh
# {{name}}: a zut extension in POSIX sh, speaking protocol v2 by hand.
# Stdout is the protocol: log to stderr (>&2) only.

emit() { printf '%s\n' "$1"; }

# The id of a request, without a JSON parser (ids are plain strings).
field() { printf '%s' "$2" | sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p"; }

emit '{"type":"hello","protocol_version":2,"name":"{{name}}","version":"0.1.0"}'
IFS= read -r ack || exit 1
case "$ack" in
  *'"protocol_version":2'*) ;;
  *) echo "unsupported host protocol version: $ack" >&2; exit 1 ;;
esac
emit '{"type":"register_command","name":"{{name}}","description":"say hello from {{name}}"}'
emit '{"type":"register_tool","name":"{{tool}}","description":"Say hello (an example tool of {{name}}).","schema":{"type":"object","properties":{}}}'
emit '{"type":"ready"}'

while IFS= read -r line; do
  case "$line" in
    *'"type":"command_invoked"'*)
      emit "{\"type\":\"command_response\",\"id\":\"$(field id "$line")\",\"action\":\"display\",\"display\":\"hello from {{name}}\"}" ;;
    *'"type":"tool_call"'*)
      emit "{\"type\":\"tool_result\",\"id\":\"$(field id "$line")\",\"content\":[{\"type\":\"text\",\"text\":\"hello from {{name}}\"}]}" ;;
    *'"type":"event_intercept"'*)
      emit "{\"type\":\"event_intercept_response\",\"id\":\"$(field id "$line")\"}" ;;
    *'"type":"shutdown"'*)
      emit '{"type":"shutdown_ack"}'
      exit 0 ;;
  esac
done
