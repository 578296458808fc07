// Ten stand-ins for the Go original's example extensions, for
// scripts/bench/reload: one binary, the role is its first argument. Each
// registers what its namesake does (commands, tools, subscriptions,
// interceptors, chrome), answers requests, and exits when stdin closes.
// Written against the wire protocol (protocol.md), standard library only.
package main

import (
	"bufio"
	"encoding/json"
	"os"
)

type frame = map[string]any

var out = bufio.NewWriter(os.Stdout)

func send(f frame) {
	b, _ := json.Marshal(f)
	out.Write(b)
	out.WriteByte('\n')
}

func command(name, desc string) frame {
	return frame{"type": "register_command", "name": name, "description": desc}
}

func tool(name, desc string, props frame) frame {
	return frame{"type": "register_tool", "name": name, "description": desc,
		"schema": frame{"type": "object", "properties": props}}
}

var str = frame{"type": "string"}

// registrations per role, sent after hello_ack and before ready.
func registrations(role string) []frame {
	switch role {
	case "hello":
		return []frame{command("hello", "say hi"), command("where", "show the project directory")}
	case "clock":
		return []frame{command("time", "show the time")}
	case "weather":
		return []frame{tool("weather", "current weather for a city", frame{"city": str})}
	case "guard":
		return []frame{{"type": "subscribe", "events": []string{"tool_call", "tool_result"},
			"intercept": []string{"tool_call"}}}
	case "todo":
		return []frame{command("todo", "open the todo panel"),
			tool("todo", "manage the todo list", frame{"action": str, "text": str})}
	case "scratchpad":
		return []frame{command("scratch", "show the scratchpad"), command("scratch-clear", "clear it"),
			tool("scratchpad_write", "append a note", frame{"text": str})}
	case "phases":
		return []frame{{"type": "subscribe", "events": []string{"turn_start", "turn_end", "tool_call"}},
			tool("set_phase", "set the current phase", frame{"phase": str}),
			{"type": "status", "key": "phase", "level": "info", "text": "planning"},
			{"type": "widget", "id": "phases", "position": "right_bar", "title": "Phases",
				"lines": []string{"1. plan", "2. build", "3. check"}}}
	case "approve":
		return []frame{{"type": "subscribe", "intercept": []string{"tool_call"}},
			command("approve-mode", "toggle approvals")}
	case "summon":
		return []frame{command("summon", "notify and display"),
			{"type": "subscribe", "events": []string{"agent_end"}}}
	case "mcp-bridge":
		return []frame{tool("mcp_list", "list the bridged servers", frame{}),
			tool("mcp_call", "call a bridged tool", frame{"server": str, "tool": str, "args": frame{"type": "object"}}),
			{"type": "register_tool", "name": "mcp_fetch", "description": "fetch through a bridged server",
				"schema": frame{"type": "object", "properties": frame{"url": str}}, "deferred": true}}
	}
	return nil
}

func main() {
	role := "hello"
	if len(os.Args) > 1 {
		role = os.Args[1]
	}
	send(frame{"type": "hello", "protocol_version": 2, "name": role, "version": "1.0.0"})
	out.Flush()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for in.Scan() {
		var m frame
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		id, _ := m["id"].(string)
		name, _ := m["name"].(string)
		switch m["type"] {
		case "hello_ack":
			for _, f := range registrations(role) {
				send(f)
			}
			send(frame{"type": "ready"})
		case "command_invoked":
			send(frame{"type": "command_response", "id": id, "action": "display",
				"display": role + ": " + name})
		case "tool_call":
			send(frame{"type": "tool_result", "id": id,
				"content": []frame{{"type": "text", "text": role + " ok"}}})
		case "event_intercept":
			send(frame{"type": "event_intercept_response", "id": id})
		case "panel_key":
			send(frame{"type": "panel_render", "panel_id": m["panel_id"], "lines": []string{"todo"}})
		case "shutdown":
			out.Flush()
			return
		}
		out.Flush()
	}
}
