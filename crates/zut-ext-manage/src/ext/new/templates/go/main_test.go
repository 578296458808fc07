package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Drives run() with frames like zut sends them: go test
func TestCommandToolShutdown(t *testing.T) {
	in := strings.NewReader(`{"type":"hello_ack","protocol_version":2}
{"type":"tool_call","id":"t1","name":"{{tool}}","args":{"text":"hi"}}
{"type":"command_invoked","id":"c1","name":"{{name}}"}
{"type":"shutdown"}
`)
	var out bytes.Buffer
	if err := run(in, &out); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var f map[string]any
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("bad frame %q: %v", line, err)
		}
		types = append(types, f["type"].(string))
	}
	want := "hello register_command register_tool ready tool_result command_response shutdown_ack"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("frames %q, want %q", got, want)
	}
}
