package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dshlog/dshlog/agentloop"
)

// loopOptions are the inputs of dshlog loop.
type loopOptions struct {
	scenario string
	script   string
	list     bool
	output   string
	verify   bool
	endpoint string
	model    string
	keyEnv   string
	// beforeVerify, when set, runs on each written file before --verify
	// reads it back (tests edit the log there).
	beforeVerify func(path string) error
}

func init() { addVerb(newLoopCommand) }

// newLoopCommand returns dshlog loop, which runs a deterministic agent loop
// and writes the session log it produces.
func newLoopCommand(s *streams) *cobra.Command {
	var opts loopOptions
	cmd := &cobra.Command{
		Use:   "loop (--scenario NAME | --script FILE | --list) [-o FILE] [--verify]",
		Short: "Run a small deterministic agent loop and write its session log",
		Long: `Run a minimal agent loop that writes a real v4 session log in dsh's order:
inbox splices, turn/start, step/start, the system prompt, the user message,
request/header and request/context, the settlement (assistant/message or
assistant/attempt), tool/call and tool/result pairs, step/end, turn/end.
Every event passes the admission dsh's reader and Session apply before it is
written, every request is derived from the log by the fold and frozen, and
the clock and ids are fixed, so a scenario gives the same bytes on every run.
Use it to make reference logs and keep them as regression snapshots.

--scenario runs a built-in scenario (--list names them); --script runs a
JSON script of your own (its format is in README.md, an example in
examples/loop-script.json). The log goes to standard output, or to FILE with
-o (published atomically; an existing file is never replaced). A scenario
that writes several sessions (fork) needs -o: session K after the first goes
to FILE with ".K" before its extension.

--verify reads each written log back from disk and checks the
reconstruction theorem on the requests the model actually received: each
equals, byte for byte, the request dshlog fold rebuilds from the events
before its settlement, and each extends the previous one unless the log
says why (a series header or a session/end-seed). A difference names the
request, the first differing message or field and both versions, and exits 1.

The model is the script's (replies written in the script) unless
--endpoint URL and --model NAME point at an OpenAI-compatible streaming
chat-completions server (DeepSeek's API is one); the API key is read from
the environment variable --api-key-env names (DSHLOG_API_KEY). The script's
users, compactions and crash then still apply; its replies do not, and the
request header names provider "openai-compatible" and the --model. A
RATE_LIMIT answer (HTTP 429) is retried up to 3 times, each after the wait
its Retry-After names (at most a minute), or else after 1, 2 and 4 seconds;
a script's model is retried at once. Ctrl-C is the user's cancel (during
such a wait too): the stream in progress is kept as an interrupted
message, its turn ends aborted, and the log written so far is published.`,
		Example: `  dshlog loop --list
  dshlog loop --scenario four-turn -o four-turn.v4.jsonl --verify
  dshlog loop --scenario fork -o fork.v4.jsonl
  dshlog loop --script examples/loop-script.json | dshlog fold --surface -
  DSHLOG_API_KEY=... dshlog loop --script my.json --endpoint https://api.deepseek.com --model deepseek-chat -o my.v4.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLoop(cmd.Context(), opts, s)
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&opts.scenario, "scenario", "", "run the built-in scenario NAME")
	flags.StringVar(&opts.script, "script", "", "run the JSON script FILE")
	flags.BoolVar(&opts.list, "list", false, "list the built-in scenarios")
	flags.StringVarP(&opts.output, "output", "o", "", "write the log to FILE (never replacing one)")
	flags.BoolVar(&opts.verify, "verify", false, "read the log back and check every request against it (exit 1 on a difference)")
	flags.StringVar(&opts.endpoint, "endpoint", "", "OpenAI-compatible API base URL to send requests to")
	flags.StringVar(&opts.model, "model", "", "model name for --endpoint")
	flags.StringVar(&opts.keyEnv, "api-key-env", "DSHLOG_API_KEY", "environment variable holding the API key for --endpoint")
	return cmd
}

func runLoop(ctx context.Context, opts loopOptions, s *streams) error {
	if ctx == nil {
		ctx = context.Background()
	}
	// Ctrl-C is the user's cancel: the stream in progress is settled, its
	// turn ends aborted, and the log written so far is kept.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	chosen := 0
	for _, set := range []bool{opts.list, opts.scenario != "", opts.script != ""} {
		if set {
			chosen++
		}
	}
	if chosen != 1 {
		return usageErrorf("give exactly one of --scenario NAME, --script FILE or --list")
	}
	if (opts.endpoint == "") != (opts.model == "") {
		return usageErrorf("--endpoint and --model go together")
	}
	if opts.list {
		return listScenarios(s.out)
	}
	scripts, err := loopScripts(opts)
	if err != nil {
		return err
	}
	if len(scripts) > 1 && opts.output == "" {
		return usageErrorf("this scenario writes %d sessions; give -o FILE", len(scripts))
	}
	dir := ""
	if opts.output == "" && opts.verify {
		if dir, err = os.MkdirTemp("", "dshlog-loop-*"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	problems := 0
	for k, script := range scripts {
		model, err := loopModel(opts, script)
		if err != nil {
			return err
		}
		if opts.output == "" && !opts.verify {
			if _, err := runLoopScript(ctx, script, model, s.out, s); err != nil {
				return err
			}
			continue
		}
		path := sessionPath(opts.output, k)
		if dir != "" {
			path = filepath.Join(dir, script.Session+".v4.jsonl")
		}
		run, err := publishLoop(ctx, path, script, model, s)
		if err != nil {
			return err
		}
		if opts.output != "" {
			fmt.Fprintf(s.out, "%s: session %s, %d %s\n", path, run.Header.ID, len(run.Requests), plural(len(run.Requests), "request", "requests"))
		}
		if !opts.verify {
			continue
		}
		if opts.beforeVerify != nil {
			if err := opts.beforeVerify(path); err != nil {
				return err
			}
		}
		if err := agentloop.CheckRequests(path, run.Requests); err != nil {
			var mismatch *agentloop.Mismatch
			var series *agentloop.SeriesError
			if !errors.As(err, &mismatch) && !errors.As(err, &series) {
				return err
			}
			problems++
			fmt.Fprintf(s.out, "%s: %s\n", path, err)
			continue
		}
		fmt.Fprintf(s.out, "%s: %d %s verified: each equals byte for byte the request rebuilt from the log before its settlement, and extends the previous one or the log says why\n",
			run.Header.ID, len(run.Requests), plural(len(run.Requests), "request", "requests"))
	}
	if problems > 0 {
		return &ProblemsError{File: "dshlog loop --verify", Count: problems}
	}
	return nil
}

// loopScripts returns the scripts to run: a scenario's, or the one file.
func loopScripts(opts loopOptions) ([]*agentloop.Script, error) {
	if opts.scenario != "" {
		sc, ok := agentloop.FindScenario(opts.scenario)
		if !ok {
			var names []string
			for _, known := range agentloop.Scenarios {
				names = append(names, known.Name)
			}
			return nil, usageErrorf("no scenario %q (there are %s)", opts.scenario, strings.Join(names, ", "))
		}
		return sc.Scripts()
	}
	data, err := os.ReadFile(opts.script)
	if err != nil {
		return nil, err
	}
	script, err := agentloop.ParseScript(data)
	if err != nil {
		return nil, &UsageError{Err: fmt.Errorf("%s: %w", opts.script, err)}
	}
	return []*agentloop.Script{script}, nil
}

// loopModel returns the model a script runs with: its own replies, or the
// OpenAI-compatible server, whose model the request header then names.
func loopModel(opts loopOptions, script *agentloop.Script) (agentloop.Model, error) {
	if opts.endpoint == "" {
		return nil, nil // RunScript uses the script's replies
	}
	script.Provider, script.Model = "openai-compatible", opts.model
	return &agentloop.OpenAIModel{Endpoint: opts.endpoint, Model: opts.model, APIKey: os.Getenv(opts.keyEnv)}, nil
}

// runLoopScript runs one script into w and notes a scripted crash.
func runLoopScript(ctx context.Context, script *agentloop.Script, model agentloop.Model, w io.Writer, s *streams) (agentloop.Run, error) {
	run, err := agentloop.RunScript(ctx, script, model, w)
	if err != nil {
		return run, err
	}
	if run.Interrupted {
		note(s, "session %s: interrupted; the turn in progress ends aborted and no later turn was run", script.Session)
	}
	if run.Crashed {
		note(s, "session %s: the loop was killed during a tool call, as the script asks; the log ends with a dangling tool/call (dshlog repair shows the closers)", script.Session)
	}
	return run, nil
}

// publishLoop runs the script into a new file at path, published whole or
// not at all (publishNew).
func publishLoop(ctx context.Context, path string, script *agentloop.Script, model agentloop.Model, s *streams) (agentloop.Run, error) {
	var run agentloop.Run
	err := publishNew(path, "loop never overwrites a session", func(w io.Writer) error {
		var err error
		run, err = runLoopScript(ctx, script, model, w, s)
		return err
	})
	return run, err
}

// sessionPath is where session k of a scenario goes: path itself for the
// first, then path with ".k" before its extension (.v4.jsonl, .jsonl or
// the last one), as dsh names a session's children.
func sessionPath(path string, k int) string {
	if k == 0 {
		return path
	}
	for _, ext := range []string{".v4.jsonl", ".jsonl", filepath.Ext(path)} {
		if base, ok := strings.CutSuffix(path, ext); ok && ext != "" {
			return fmt.Sprintf("%s.%d%s", base, k, ext)
		}
	}
	return fmt.Sprintf("%s.%d", path, k)
}

// listScenarios prints the built-in scenarios.
func listScenarios(w io.Writer) error {
	var rows [][]string
	for _, sc := range agentloop.Scenarios {
		scripts, err := sc.Scripts()
		if err != nil {
			return err
		}
		rows = append(rows, []string{sc.Name, itoa(int64(len(scripts))), sc.Description})
	}
	return writeTable(w, []string{"SCENARIO", "SESSIONS", "DESCRIPTION"}, []bool{false, true, false}, rows)
}
