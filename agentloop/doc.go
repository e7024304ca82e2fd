// Package agentloop is a minimal, deterministic agent loop that writes real
// v4 session logs the way dsh's loop does, so that dsh's central promise,
// "model-visible means logged", can be tested on requests actually sent:
// every request the model received must be rebuilt byte for byte from the
// events before its settlement (semantics.md §4.5, §4.8).
//
// A Loop runs turns of a Script. Each turn is written in dsh's step order
// (§4.2): the inbox queue splice, turn/start, the claim splice, then per
// step step/start, the system prompt on the loop's first step, the claimed
// user message, request/header and request/context when due, the
// settlement (assistant/message, or assistant/attempt for a failed or
// empty stream, a RATE_LIMIT attempt being retried in the same step), the
// tool/call and tool/result pairs, step/end, and turn/end. A compaction
// replaces whole turns by a summary user/message that cites every node it
// shadows, and the next request's header starts a series.
//
// Every event goes through the admission dsh's reader runs (v4.Appender)
// and the checks of dsh's Session (fold.Load) before it is written, so the
// loop cannot write a log dsh would refuse. A request is never assembled by
// hand: it is the fold's view of the log at dispatch (fold.Dispatch),
// encoded once and frozen in a Request, whose bytes cannot change; before
// the model sees it the loop checks it against the log once more, as dsh's
// live invariant does.
//
// The Model is a ScriptedModel (replies from the script) or an
// OpenAIModel (an OpenAI-compatible streaming chat-completions server); a
// Recorder keeps every request a model received. Time comes from a fixed
// Clock and ids from a seeded generator, so a script gives the same bytes
// on every run. CheckRequests is the reconstruction theorem: it reads the
// written file back and compares each recorded request with the one the
// fold rebuilds from log[0..settlement).
//
// Memory: a Loop holds the fold of its log (the live surface, see package
// fold), the appender's lifecycle state and the seqs of each turn's nodes;
// each row goes to the writer as soon as it is admitted. A Recorder holds
// every request it saw. A fork script runs its parent in memory first and
// holds the parent's log while it cuts the seed.
package agentloop
