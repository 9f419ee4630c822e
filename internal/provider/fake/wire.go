package fake

import (
	"encoding/json"
	"fmt"
	"strings"
)

// obj keeps the wire shapes short; encoding/json sorts its keys, so the
// bytes sent are the same on every run.
type obj = map[string]any

// msgID and callID number a reply's message and tool calls by request.
func (rp reply) msgID(prefix string) string { return fmt.Sprintf("%s%03d", prefix, rp.n) }

func (rp reply) callID(prefix string, i int) string {
	return fmt.Sprintf("%s%03d_%d", prefix, rp.n, i+1)
}

// stop picks the stop reason: one word for text, another for tool calls,
// none for a no_finish turn.
func (rp reply) stop(text, tools string) any {
	if rp.noFinish {
		return nil
	}
	if len(rp.calls) > 0 {
		return tools
	}
	return text
}

func (rp reply) anthropicUsage(output int64) obj {
	return obj{
		"input_tokens":                rp.usage.InputTokens,
		"output_tokens":               output,
		"cache_read_input_tokens":     rp.usage.CacheReadTokens,
		"cache_creation_input_tokens": rp.usage.CacheWriteTokens,
	}
}

// anthropicEvents is the Messages API event stream for a reply, and the
// number of events to send when the reply is cut.
func anthropicEvents(rp reply) (events []string, cutAt int) {
	add := func(typ string, v obj) {
		data, _ := json.Marshal(v)
		events = append(events, "event: "+typ+"\ndata: "+string(data)+"\n\n")
	}
	add("message_start", obj{"type": "message_start", "message": obj{
		"id": rp.msgID("msg_fake_"), "type": "message", "role": "assistant", "model": rp.model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": rp.anthropicUsage(1),
	}})
	add("ping", obj{"type": "ping"})
	index := 0
	if rp.text != "" {
		add("content_block_start", obj{"type": "content_block_start", "index": index, "content_block": obj{"type": "text", "text": ""}})
		for _, w := range strings.SplitAfter(rp.text, " ") {
			add("content_block_delta", obj{"type": "content_block_delta", "index": index, "delta": obj{"type": "text_delta", "text": w}})
		}
		add("content_block_stop", obj{"type": "content_block_stop", "index": index})
		index++
	}
	cutAt = max(3, len(events)/2+1)
	for i, c := range rp.calls {
		add("content_block_start", obj{"type": "content_block_start", "index": index, "content_block": obj{
			"type": "tool_use", "id": rp.callID("toolu_fake_", i), "name": c.Name, "input": obj{},
		}})
		for j, p := range pieces(inputOf(c)) {
			add("content_block_delta", obj{"type": "content_block_delta", "index": index, "delta": obj{"type": "input_json_delta", "partial_json": p}})
			if i == len(rp.calls)-1 && j == 0 {
				cutAt = len(events)
			}
		}
		add("content_block_stop", obj{"type": "content_block_stop", "index": index})
		index++
	}
	last := len(events)
	if !rp.noFinish {
		add("message_delta", obj{"type": "message_delta",
			"delta": obj{"stop_reason": rp.stop("end_turn", "tool_use"), "stop_sequence": nil},
			"usage": obj{"output_tokens": rp.usage.OutputTokens},
		})
	}
	add("message_stop", obj{"type": "message_stop"})
	return events, min(cutAt, last)
}

// anthropicMessage is the Messages API's non-streaming answer.
func anthropicMessage(rp reply) obj {
	content := []any{}
	if rp.text != "" {
		content = append(content, obj{"type": "text", "text": rp.text})
	}
	for i, c := range rp.calls {
		// Malformed raw input cannot sit inside a JSON document; it is
		// sent as a string, which is not an object either.
		var input any = inputOf(c)
		if json.Valid([]byte(inputOf(c))) {
			input = json.RawMessage(inputOf(c))
		}
		content = append(content, obj{"type": "tool_use", "id": rp.callID("toolu_fake_", i), "name": c.Name, "input": input})
	}
	return obj{
		"id": rp.msgID("msg_fake_"), "type": "message", "role": "assistant", "model": rp.model,
		"content": content, "stop_reason": rp.stop("end_turn", "tool_use"), "stop_sequence": nil,
		"usage": rp.anthropicUsage(rp.usage.OutputTokens),
	}
}

func (rp reply) openaiUsage() obj {
	return obj{
		"prompt_tokens":         rp.usage.InputTokens + rp.usage.CacheReadTokens,
		"completion_tokens":     rp.usage.OutputTokens,
		"total_tokens":          rp.usage.InputTokens + rp.usage.CacheReadTokens + rp.usage.OutputTokens,
		"prompt_tokens_details": obj{"cached_tokens": rp.usage.CacheReadTokens},
	}
}

// openaiChunks is the Chat Completions SSE stream for a reply, ending with
// [DONE], and the number of chunks to send when the reply is cut.
func openaiChunks(rp reply) (chunks []string, cutAt int) {
	id := rp.msgID("chatcmpl-fake-")
	add := func(choices []any, usage any) {
		data, _ := json.Marshal(obj{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": rp.model,
			"system_fingerprint": "fake", "choices": choices, "usage": usage,
		})
		chunks = append(chunks, "data: "+string(data)+"\n\n")
	}
	delta := func(d obj, finish any) {
		add([]any{obj{"index": 0, "delta": d, "logprobs": nil, "finish_reason": finish}}, nil)
	}
	delta(obj{"role": "assistant", "content": ""}, nil)
	for _, w := range strings.SplitAfter(rp.text, " ") {
		if w != "" {
			delta(obj{"content": w}, nil)
		}
	}
	cutAt = max(2, len(chunks)/2+1)
	for i, c := range rp.calls {
		delta(obj{"tool_calls": []any{obj{"index": i, "id": rp.callID("call_fake_", i), "type": "function",
			"function": obj{"name": c.Name, "arguments": ""}}}}, nil)
		for j, p := range pieces(inputOf(c)) {
			delta(obj{"tool_calls": []any{obj{"index": i, "function": obj{"arguments": p}}}}, nil)
			if i == len(rp.calls)-1 && j == 0 {
				cutAt = len(chunks)
			}
		}
	}
	last := len(chunks)
	if !rp.noFinish {
		delta(obj{}, rp.stop("stop", "tool_calls"))
	}
	if rp.wantsUsage {
		add([]any{}, rp.openaiUsage())
	}
	chunks = append(chunks, "data: [DONE]\n\n")
	return chunks, min(cutAt, last)
}

// openaiCompletion is the Chat Completions non-streaming answer.
func openaiCompletion(rp reply) obj {
	msg := obj{"role": "assistant", "content": nil, "refusal": nil}
	if rp.text != "" {
		msg["content"] = rp.text
	}
	if len(rp.calls) > 0 {
		var calls []any
		for i, c := range rp.calls {
			calls = append(calls, obj{"id": rp.callID("call_fake_", i), "type": "function",
				"function": obj{"name": c.Name, "arguments": inputOf(c)}})
		}
		msg["tool_calls"] = calls
	}
	return obj{
		"id": rp.msgID("chatcmpl-fake-"), "object": "chat.completion", "created": created, "model": rp.model,
		"system_fingerprint": "fake",
		"choices":            []any{obj{"index": 0, "message": msg, "logprobs": nil, "finish_reason": rp.stop("stop", "tool_calls")}},
		"usage":              rp.openaiUsage(),
	}
}

// endlessChunk is the text of each delta of an endless turn: large, so a
// client reaches its bound in few events.
var endlessChunk = strings.Repeat("endless ", 2048)

// endlessFrames are the opening frames of an endless turn (up to and
// including its scripted text) and the frame it then repeats.
func endlessFrames(a api, rp reply) (head []string, again string) {
	if a == anthropicAPI {
		events, _ := anthropicEvents(reply{n: rp.n, model: rp.model, text: rp.text, usage: rp.usage})
		// Keep message_start, ping, the text block's start and its deltas;
		// the block never stops.
		head = events[:len(events)-3]
		if rp.text == "" {
			head = append(events[:2:2], "event: content_block_start\ndata: "+
				`{"content_block":{"text":"","type":"text"},"index":0,"type":"content_block_start"}`+"\n\n")
		}
		data, _ := json.Marshal(obj{"type": "content_block_delta", "index": 0, "delta": obj{"type": "text_delta", "text": endlessChunk}})
		return head, "event: content_block_delta\ndata: " + string(data) + "\n\n"
	}
	chunks, _ := openaiChunks(reply{n: rp.n, model: rp.model, text: rp.text, usage: rp.usage})
	// Drop the finish chunk and [DONE].
	head = chunks[:len(chunks)-2]
	data, _ := json.Marshal(obj{
		"id": rp.msgID("chatcmpl-fake-"), "object": "chat.completion.chunk", "created": created, "model": rp.model,
		"system_fingerprint": "fake", "usage": nil,
		"choices": []any{obj{"index": 0, "delta": obj{"content": endlessChunk}, "logprobs": nil, "finish_reason": nil}},
	})
	return head, "data: " + string(data) + "\n\n"
}
