// {{name}}: a zut extension in Go, speaking protocol v2 with the standard library.
// Stdout is the protocol: log to stderr (log.Printf) only.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
)

type frame map[string]any

// writer writes whole frames; handlers may run concurrently.
type writer struct {
	mu  sync.Mutex
	out io.Writer
}

func (w *writer) emit(f frame) {
	data, err := json.Marshal(f)
	if err != nil {
		log.Printf("encode: %v", err)
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.out.Write(append(data, '\n'))
}

// handle answers one host frame; it returns false on shutdown.
func handle(w *writer, msg frame) bool {
	id, _ := msg["id"].(string)
	switch msg["type"] {
	case "command_invoked":
		args, _ := msg["args"].(string)
		if args == "" {
			args = "me"
		}
		w.emit(frame{"type": "command_response", "id": id, "action": "prompt",
			"prompt": fmt.Sprintf("Say hello to %s in one short sentence.", args)})
	case "tool_call":
		args, _ := msg["args"].(map[string]any)
		text, ok := args["text"].(string)
		if !ok {
			w.emit(frame{"type": "tool_result", "id": id, "is_error": true,
				"content": []frame{{"type": "text", "text": "text must be a string"}}})
			return true
		}
		w.emit(frame{"type": "tool_result", "id": id, "content": []frame{{"type": "text", "text": text}}})
	case "event_intercept":
		w.emit(frame{"type": "event_intercept_response", "id": id})
	case "shutdown":
		w.emit(frame{"type": "shutdown_ack"})
		return false
	}
	return true
}

func run(in io.Reader, out io.Writer) error {
	w := &writer{out: out}
	w.emit(frame{"type": "hello", "protocol_version": 2, "name": "{{name}}", "version": "0.1.0"})
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 64*1024), 4*1024*1024)
	if !scanner.Scan() {
		return fmt.Errorf("stdin closed before hello_ack")
	}
	var ack frame
	if err := json.Unmarshal(scanner.Bytes(), &ack); err != nil || ack["type"] != "hello_ack" || ack["protocol_version"] != float64(2) {
		return fmt.Errorf("unsupported host protocol version: %s", scanner.Text())
	}
	w.emit(frame{"type": "register_command", "name": "{{name}}", "description": "say hello from {{name}}"})
	w.emit(frame{"type": "register_tool", "name": "{{tool}}", "description": "Echo a text back (an example tool of {{name}}).",
		"schema": frame{"type": "object", "properties": frame{"text": frame{"type": "string"}}, "required": []string{"text"}}})
	w.emit(frame{"type": "ready"})
	for scanner.Scan() {
		var msg frame
		if err := json.Unmarshal(scanner.Bytes(), &msg); err != nil {
			log.Printf("malformed host frame skipped: %v", err)
			continue
		}
		if !handle(w, msg) {
			return nil
		}
	}
	return scanner.Err()
}

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		log.Printf("error: %v", err)
		os.Exit(1)
	}
}
