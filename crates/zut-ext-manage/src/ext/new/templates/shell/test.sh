#!/bin/sh
# Drives ext.sh like zut does: sh test.sh
set -eu
cd "$(dirname "$0")"
out=$(printf '%s\n' '{"type":"hello_ack","protocol_version":2}' \
  '{"type":"tool_call","id":"t1","name":"{{tool}}","args":{}}' \
  '{"type":"command_invoked","id":"c1","name":"{{name}}"}' \
  '{"type":"shutdown"}' | sh ./ext.sh)
echo "$out" | grep -q '"type":"tool_result","id":"t1"' || { echo "no tool_result: $out"; exit 1; }
echo "$out" | grep -q '"type":"command_response","id":"c1"' || { echo "no command_response: $out"; exit 1; }
echo "$out" | tail -n 1 | grep -q '"type":"shutdown_ack"' || { echo "no shutdown_ack: $out"; exit 1; }
echo "ok"
