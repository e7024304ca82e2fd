package cli

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the golden outputs under testdata/snapshots and the scripts' cmp files")

// TestMain registers the dshlog command so scripts run the real command tree.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"dshlog": func() { os.Exit(Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs every testdata/script/*.txtar. Scripts see the project's
// test data as $TESTDATA and compare outputs with its snapshots through the
// snapshot command.
func TestScripts(t *testing.T) {
	testdata, err := filepath.Abs(filepath.Join("..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join("testdata", "script"),
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("TESTDATA", testdata)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"snapshot": snapshotCmd(filepath.Join(testdata, "snapshots")),
			"exitcode": exitcodeCmd,
			"compress": compressCmd,
			"chop":     chopCmd,
			"junit":    junitCmd,
		},
	})
}

// snapshotCmd returns the script command "snapshot NAME": the last command's
// stdout must equal testdata/snapshots/NAME, which -update rewrites.
func snapshotCmd(dir string) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: snapshot NAME")
		}
		got := []byte(ts.ReadFile("stdout"))
		path := filepath.Join(dir, filepath.FromSlash(args[0]))
		if *update {
			ts.Check(os.MkdirAll(filepath.Dir(path), 0o755))
			ts.Check(os.WriteFile(path, got, 0o644))
			return
		}
		want, err := os.ReadFile(path)
		ts.Check(err)
		if !bytes.Equal(got, want) {
			ts.Fatalf("stdout differs from snapshot %s (rerun with -update to accept):\n%s", args[0], diffLines(string(want), string(got)))
		}
	}
}

// exitcodeCmd is the script command "exitcode N PROGRAM [ARGS...]": it runs
// PROGRAM from $PATH in the script's directory with empty stdin, and its exit
// code must be N. Its output becomes stdout and stderr for the checks after it.
func exitcodeCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	path, err := exec.LookPath(args[1])
	ts.Check(err)
	cmd := exec.Command(path, args[2:]...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = os.Environ()
	for _, key := range []string{"PATH", "HOME", "TESTDATA"} {
		cmd.Env = append(cmd.Env, key+"="+ts.Getenv(key))
	}
	cmd.Stdout, cmd.Stderr = ts.Stdout(), ts.Stderr()
	got := 0
	var exit *exec.ExitError
	if err := cmd.Run(); errors.As(err, &exit) {
		got = exit.ExitCode()
	} else {
		ts.Check(err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// diffLines describes where two texts first differ, line by line.
func diffLines(want, got string) string {
	wantLines, gotLines := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wantLines) || i < len(gotLines); i++ {
		var w, g string
		if i < len(wantLines) {
			w = wantLines[i]
		}
		if i < len(gotLines) {
			g = gotLines[i]
		}
		if w != g || i >= len(wantLines) || i >= len(gotLines) {
			return fmt.Sprintf("line %d:\n  want %q\n  got  %q", i+1, w, g)
		}
	}
	return "texts are equal"
}

// compressCmd is the script command "compress zstd|zstd-one-frame|gzip SRC
// DST": it writes SRC compressed to DST, so scripts need not hold binary
// files. zstd frames the file as dsh's writer does (the header line alone in
// the first frame, the rows in the next); zstd-one-frame compresses it whole,
// as the zstd tool does.
func compressCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: compress zstd|zstd-one-frame|gzip SRC DST")
	}
	src, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	var out []byte
	switch args[0] {
	case "zstd", "zstd-one-frame":
		enc, err := zstd.NewWriter(nil)
		ts.Check(err)
		if args[0] == "zstd" {
			header, rows, _ := bytes.Cut(src, []byte("\n"))
			out = enc.EncodeAll(append(header, '\n'), nil)
			src = rows
		}
		out = enc.EncodeAll(src, out)
	case "gzip":
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		_, err = w.Write(src)
		ts.Check(err)
		ts.Check(w.Close())
		out = buf.Bytes()
	default:
		ts.Fatalf("unknown compression %q", args[0])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), out, 0o644))
}

// chopCmd is the script command "chop FILE": it removes FILE's final
// newline, tearing its last line as a crash mid-write does (txtar files
// always end with one).
func chopCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: chop FILE")
	}
	path := ts.MkAbs(args[0])
	data, err := os.ReadFile(path)
	ts.Check(err)
	ts.Check(os.WriteFile(path, bytes.TrimSuffix(data, []byte("\n")), 0o644))
}

// junitCmd is the script command "junit FILE TESTS FAILURES ERRORS": FILE
// must be well-formed JUnit XML (parsed with encoding/xml) whose
// testsuites and single testsuite count TESTS test cases, FAILURES failing
// ones and ERRORS in error, and whose test cases agree with the counts.
func junitCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: junit FILE TESTS FAILURES ERRORS")
	}
	var want [3]int
	for i, arg := range args[1:] {
		n, err := strconv.Atoi(arg)
		ts.Check(err)
		want[i] = n
	}
	type problem struct {
		Type string `xml:"type,attr"`
	}
	var doc struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Errors   int      `xml:"errors,attr"`
		Suites   []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Errors   int `xml:"errors,attr"`
			Cases    []struct {
				Name     string    `xml:"name,attr"`
				Failures []problem `xml:"failure"`
				Error    *problem  `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		ts.Fatalf("%s is not well-formed JUnit XML: %v", args[0], err)
	}
	if len(doc.Suites) != 1 {
		ts.Fatalf("%d test suites, want 1", len(doc.Suites))
	}
	suite := doc.Suites[0]
	var counted [3]int
	for _, c := range suite.Cases {
		counted[0]++
		if len(c.Failures) > 0 {
			counted[1]++
		}
		if c.Error != nil {
			counted[2]++
		}
	}
	for _, got := range [][3]int{{doc.Tests, doc.Failures, doc.Errors}, {suite.Tests, suite.Failures, suite.Errors}, counted} {
		if got != want {
			ts.Fatalf("tests, failures, errors = %v, want %v", got, want)
		}
	}
}
