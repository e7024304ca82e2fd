package transcript_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// chromium drives a headless Chromium over the DevTools protocol on a pipe
// (--remote-debugging-pipe: JSON messages ended by NUL on file descriptors
// 3 and 4), so the test needs no WebSocket library and opens no port.
type chromium struct {
	cmd     *exec.Cmd
	toPipe  io.WriteCloser
	mu      sync.Mutex
	nextID  int
	waiting map[int]chan cdpMessage
	events  chan cdpMessage
	stderr  bytes.Buffer
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// findChromium returns the browser to run: $DSHLOG_CHROMIUM, else the first
// of Debian's chromium and its other usual names on PATH.
func findChromium() (string, bool) {
	if path := os.Getenv("DSHLOG_CHROMIUM"); path != "" {
		return path, true
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path, true
		}
	}
	return "", false
}

// startChromium starts a headless browser with a throwaway profile, no
// network services of its own, and the DevTools protocol on a pipe.
func startChromium(t *testing.T) *chromium {
	path, ok := findChromium()
	if !ok {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium not found on PATH: CI must install it (.ci/run does: apt-get install -y chromium)")
		}
		t.Skip("chromium not found on PATH: install Debian's chromium (apt-get install -y chromium) to run the browser test; under CI=true this test fails instead")
	}
	toBrowserR, toBrowserW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromBrowserR, fromBrowserW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &chromium{toPipe: toBrowserW, waiting: map[int]chan cdpMessage{}, events: make(chan cdpMessage, 1024)}
	c.cmd = exec.Command(path,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
		"--disable-dev-shm-usage", "--window-size=1400,900",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", "about:blank")
	c.cmd.ExtraFiles = []*os.File{toBrowserR, fromBrowserW} // fds 3 and 4
	c.cmd.Stderr = &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toBrowserR.Close()
	fromBrowserW.Close()
	go c.read(fromBrowserR)
	t.Cleanup(func() {
		c.toPipe.Close()
		done := make(chan struct{})
		go func() { c.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			c.cmd.Process.Kill()
			<-done
		}
	})
	return c
}

// read hands replies to their callers and keeps events for the test.
func (c *chromium) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		frame, err := br.ReadBytes(0)
		if err != nil {
			close(c.events)
			c.mu.Lock()
			for id, ch := range c.waiting {
				close(ch)
				delete(c.waiting, id)
			}
			c.mu.Unlock()
			return
		}
		var m cdpMessage
		if json.Unmarshal(frame[:len(frame)-1], &m) != nil {
			continue
		}
		if m.ID != 0 {
			c.mu.Lock()
			ch := c.waiting[m.ID]
			delete(c.waiting, m.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		select {
		case c.events <- m:
		default: // the test reads events between steps; a flood is not its concern
		}
	}
}

// call sends a command (to a page when session is set) and waits for its
// result.
func (c *chromium) call(t *testing.T, session, method string, params any) json.RawMessage {
	t.Helper()
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan cdpMessage, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	raw, _ := json.Marshal(params)
	msg, _ := json.Marshal(cdpMessage{ID: id, Method: method, SessionID: session, Params: raw})
	if _, err := c.toPipe.Write(append(msg, 0)); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the browser closed the pipe; its stderr:\n%s", method, c.stderr.String())
		}
		if m.Error != nil {
			t.Fatalf("%s: %s", method, m.Error.Message)
		}
		return m.Result
	case <-time.After(90 * time.Second):
		t.Fatalf("%s: no answer from the browser in 90s", method)
	}
	return nil
}

// page is one tab attached in flat mode.
type page struct {
	c       *chromium
	session string
	// problems are console errors, uncaught exceptions, log errors and
	// requests for anything but the page's own file.
	problems []string
	// scripts are the URLs of the scripts V8 compiled for the page: its
	// own inline script, any other script or event handler that ran, and
	// the test's own expressions (which have no URL).
	scripts []string
}

func (c *chromium) open(t *testing.T, url string) *page {
	t.Helper()
	var target struct{ TargetID string }
	json.Unmarshal(c.call(t, "", "Target.createTarget", map[string]any{"url": "about:blank"}), &target)
	var attached struct{ SessionID string }
	json.Unmarshal(c.call(t, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}), &attached)
	p := &page{c: c, session: attached.SessionID}
	for _, domain := range []string{"Runtime.enable", "Log.enable", "Page.enable", "Network.enable", "Debugger.enable"} {
		c.call(t, p.session, domain, map[string]any{})
	}
	c.call(t, p.session, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 1400, "height": 900, "deviceScaleFactor": 1, "mobile": false})
	p.drain()
	c.call(t, p.session, "Page.navigate", map[string]any{"url": url})
	deadline := time.After(90 * time.Second)
	for {
		select {
		case m, ok := <-c.events:
			if !ok {
				t.Fatalf("the browser exited while loading %s:\n%s", url, c.stderr.String())
			}
			p.note(m)
			if m.SessionID == p.session && m.Method == "Page.loadEventFired" {
				return p
			}
		case <-deadline:
			t.Fatalf("%s did not load in 90s", url)
		}
	}
}

// pageScripts returns how many scripts were compiled from url.
func (p *page) pageScripts(url string) int {
	n := 0
	for _, s := range p.scripts {
		if s == url {
			n++
		}
	}
	return n
}

// drain takes the events that arrived so far.
func (p *page) drain() {
	for {
		select {
		case m, ok := <-p.c.events:
			if !ok {
				return
			}
			p.note(m)
		default:
			return
		}
	}
}

// note records an event that means the page misbehaved.
func (p *page) note(m cdpMessage) {
	if m.SessionID != p.session {
		return
	}
	switch m.Method {
	case "Runtime.consoleAPICalled":
		var e struct {
			Type string
			Args []struct{ Value any }
		}
		json.Unmarshal(m.Params, &e)
		if e.Type == "error" || e.Type == "assert" {
			p.problems = append(p.problems, fmt.Sprintf("console.%s %v", e.Type, e.Args))
		}
	case "Runtime.exceptionThrown":
		p.problems = append(p.problems, "exception: "+string(m.Params))
	case "Log.entryAdded":
		var e struct {
			Entry struct{ Level, Source, Text, URL string }
		}
		json.Unmarshal(m.Params, &e)
		if e.Entry.Level == "error" {
			p.problems = append(p.problems, "log error ("+e.Entry.Source+"): "+e.Entry.Text+" "+e.Entry.URL)
		}
	case "Debugger.scriptParsed":
		var e struct{ URL string }
		json.Unmarshal(m.Params, &e)
		p.scripts = append(p.scripts, e.URL)
	case "Network.requestWillBeSent":
		var e struct{ Request struct{ URL string } }
		json.Unmarshal(m.Params, &e)
		if !strings.HasPrefix(e.Request.URL, "file://") && !strings.HasPrefix(e.Request.URL, "data:") && e.Request.URL != "about:blank" {
			p.problems = append(p.problems, "network request: "+e.Request.URL)
		}
	}
}

// eval evaluates a JavaScript expression (awaiting a promise) and decodes
// its value into out.
func (p *page) eval(t *testing.T, expression string, out any) {
	t.Helper()
	raw := p.c.call(t, p.session, "Runtime.evaluate", map[string]any{"expression": expression, "returnByValue": true, "awaitPromise": true})
	var r struct {
		Result           struct{ Value json.RawMessage }
		ExceptionDetails json.RawMessage
	}
	json.Unmarshal(raw, &r)
	if r.ExceptionDetails != nil {
		t.Fatalf("%s: %s", expression, r.ExceptionDetails)
	}
	if err := json.Unmarshal(r.Result.Value, out); err != nil {
		t.Fatalf("%s: result %s: %v", expression, r.Result.Value, err)
	}
	p.drain()
}

// screenshot saves the viewport as a PNG.
func (p *page) screenshot(t *testing.T, path string) {
	t.Helper()
	var shot struct{ Data string }
	json.Unmarshal(p.c.call(t, p.session, "Page.captureScreenshot", map[string]any{"format": "png"}), &shot)
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil || len(png) == 0 {
		t.Fatalf("screenshot: %v (%d bytes)", err, len(png))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}
