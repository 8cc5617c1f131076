// Package browsertest starts headless Chromium for the viewer's tests and
// benchmark (github.com/chromedp/chromedp over the DevTools protocol) and
// collects what a page logs as an error.
//
// Chromium is Debian's chromium package (.ci/run installs it). Without it
// a test skips with a message saying how to install it, except under CI
// (CI=true), where a missing browser fails the test: CI must run them.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// names are the executables tried, Debian's first.
var names = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"}

// Path is the browser's executable, or "" when none is installed
// ($HWEPOCH_CHROMIUM overrides).
func Path() string {
	if p := os.Getenv("HWEPOCH_CHROMIUM"); p != "" {
		return p
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// Require returns the browser's path, or ends the test: a skip locally,
// a failure under CI.
func Require(tb testing.TB) string {
	tb.Helper()
	p := Path()
	if p != "" {
		return p
	}
	msg := "no Chromium found (tried " + fmt.Sprint(names) + "): install Debian's chromium package (apt-get install -y chromium) to run the browser tests"
	if os.Getenv("CI") == "true" {
		tb.Fatal("CI=true and " + msg + "; .ci/run installs it")
	}
	tb.Skip(msg)
	return ""
}

// Console collects a page's console errors and uncaught exceptions.
type Console struct {
	mu     sync.Mutex
	errors []string
}

// Errors returns what was collected so far.
func (c *Console) Errors() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.errors...)
}

func (c *Console) add(s string) {
	c.mu.Lock()
	c.errors = append(c.errors, s)
	c.mu.Unlock()
}

// New starts a headless browser with a window of width×height CSS pixels
// (device scale 1) and returns a tab's context and its console. The
// browser is closed when the test ends.
func New(tb testing.TB, width, height int) (context.Context, *Console) {
	tb.Helper()
	path := Require(tb)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.WindowSize(width, height),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("force-device-scale-factor", "1"),
		chromedp.Flag("font-render-hinting", "none"),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-background-networking", true),
	}
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run as root with its sandbox
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 2*time.Minute)
	tb.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	con := &Console{}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		tb.Fatalf("starting %s: %v", path, err)
	}
	err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				con.add(fmt.Sprintf("console.%s: %v", e.Type, args))
			}
		case *runtime.EventExceptionThrown:
			con.add("exception: " + (&chromedp.ExceptionError{ExceptionDetails: e.ExceptionDetails}).Error())
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				con.add("log: " + e.Entry.Text + " " + e.Entry.URL)
			}
		}
	})
	if err == nil {
		_, err = chromedp.Call(ctx, runtime.Enable, cdp.Empty{})
	}
	if err == nil {
		_, err = chromedp.Call(ctx, log.Enable, cdp.Empty{})
	}
	if err != nil {
		tb.Fatalf("listening to %s's console: %v", path, err)
	}
	return ctx, con
}
