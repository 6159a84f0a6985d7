// SPDX-License-Identifier: Apache-2.0
package simkubelet

import (
	"bytes"
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/utils/exec"
)

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// execResult runs argv as ExecInContainer would, with stdin from in (nil: not requested).
type execResult struct {
	stdout, stderr string
	err            error
}

func execute(t *testing.T, argv []string, in io.Reader, tty bool, resize <-chan remotecommand.TerminalSize) execResult {
	t.Helper()
	var out, errOut bytes.Buffer
	var errW io.WriteCloser = nopCloser{&errOut}
	if tty {
		errW = nil // ServeExec never asks for stderr with a tty
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := executor{}.ExecInContainer(ctx, "pod", "", "c", argv, in, nopCloser{&out}, errW, tty, resize, 0)
	return execResult{out.String(), errOut.String(), err}
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	// ServeExec asserts the type without unwrapping: the error must be the value itself.
	exitErr, ok := err.(utilexec.ExitError)
	if !ok || !exitErr.Exited() {
		t.Fatalf("error %T %v is not an exit error", err, err)
	}
	if _, ok := err.(utilexec.CodeExitError); !ok {
		t.Fatalf("error %T is not utilexec.CodeExitError", err)
	}
	return exitErr.ExitStatus()
}

func TestParseScript(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []scriptStep
	}{
		{"echo a b", []scriptStep{{words: []string{"echo", "a", "b"}}}},
		{"  echo   'a  b'\t\"c \\\" \\\\ \\n\" d\\ e ", []scriptStep{{words: []string{"echo", "a  b", `c " \ \n`, "d e"}}}},
		{"echo a;echo b && false || echo c", []scriptStep{
			{words: []string{"echo", "a"}},
			{op: ";", words: []string{"echo", "b"}},
			{op: "&&", words: []string{"false"}},
			{op: "||", words: []string{"echo", "c"}},
		}},
		{"echo 'a;b&&c'", []scriptStep{{words: []string{"echo", "a;b&&c"}}}},
		{"echo out; echo err >&2", []scriptStep{
			{words: []string{"echo", "out"}},
			{op: ";", words: []string{"echo", "err"}, stdoutToStderr: true},
		}},
		{"echo err>&2; echo x 1>&2; cat 2>&1", []scriptStep{
			{words: []string{"echo", "err"}, stdoutToStderr: true},
			{op: ";", words: []string{"echo", "x"}, stdoutToStderr: true},
			{op: ";", words: []string{"cat"}, stderrToStdout: true},
		}},
		{"echo a;\necho b;", []scriptStep{
			{words: []string{"echo", "a"}},
			{op: ";"},
			{op: ";", words: []string{"echo", "b"}},
		}},
		{"echo ''", []scriptStep{{words: []string{"echo", ""}}}},
		{"echo 12 2", []scriptStep{{words: []string{"echo", "12", "2"}}}},
		{"", nil},
	} {
		got, err := parseScript(tc.src)
		if err != nil {
			t.Errorf("parseScript(%q): %v", tc.src, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseScript(%q) = %+v, want %+v", tc.src, got, tc.want)
		}
	}
	for _, src := range []string{"echo 'a", `echo "a`, "&& echo", "echo a &&", "echo a | cat", "sleep 1 &",
		"echo a > f", "cat < f", "echo a 2>f", "echo `x`", "(echo)"} {
		if _, err := parseScript(src); err == nil {
			t.Errorf("parseScript(%q) succeeded, want an error", src)
		}
	}
}

func TestFormatPrintf(t *testing.T) {
	for _, tc := range []struct {
		format string
		args   []string
		want   string
		bad    bool
	}{
		{`a\tb\n`, nil, "a\tb\n", false},
		{`%s=%d%%\n`, []string{"x", "42"}, "x=42%\n", false},
		{`%s\n`, []string{"a", "b", "c"}, "a\nb\nc\n", false},
		{`%s-%s|`, []string{"a", "b", "c"}, "a-b|c-|", false},
		{`%d`, []string{"-7"}, "-7", false},
		{`%d`, nil, "0", false},
		{`back\\slash \q`, nil, `back\slash \q`, false},
		{`%d`, []string{"x"}, "0", true},
		{`%5s`, []string{"x"}, "", true},
	} {
		got, err := formatPrintf(tc.format, tc.args)
		if got != tc.want || (err != nil) != tc.bad {
			t.Errorf("formatPrintf(%q, %q) = %q, %v; want %q (error %v)", tc.format, tc.args, got, err, tc.want, tc.bad)
		}
	}
}

func TestBuiltins(t *testing.T) {
	for _, tc := range []struct {
		argv           []string
		stdin          *string
		stdout, stderr string
		code           int
	}{
		{argv: []string{"echo", "hi", "there"}, stdout: "hi there\n"},
		{argv: []string{"/bin/echo", "-n", "x"}, stdout: "x"},
		{argv: []string{"printf", `%s\n`, "a", "b"}, stdout: "a\nb\n"},
		{argv: []string{"true"}},
		{argv: []string{"false"}, code: 1},
		{argv: []string{"exit", "3"}, code: 3},
		{argv: []string{"exit", "137"}, code: 137},
		{argv: []string{"exit", "256"}, code: 0},
		{argv: []string{"cat"}},
		{argv: []string{"cat"}, stdin: ptrTo("abc"), stdout: "abc"},
		{argv: []string{"head", "-c", "2"}, stdin: ptrTo("abcdef"), stdout: "ab"},
		{argv: []string{"head", "-c", "10"}, stdin: ptrTo("abc"), stdout: "abc"},
		{argv: []string{"yes-bytes", "30"}, stdout: "abcdefghijklmnopqrstuvwxyzabcd"},
		{argv: []string{"sleep", "0.01"}},
		{argv: []string{"sleep", "x"}, stderr: "sleep: invalid time interval 'x'\n", code: 1},
		{argv: []string{"tty-size"}, stderr: "tty-size: not a tty\n", code: 1},
		{argv: []string{"sh", "-c", "exit 3"}, code: 3},
		{argv: []string{"sh", "-c", "echo out; echo err >&2"}, stdout: "out\n", stderr: "err\n"},
		{argv: []string{"sh", "-c", "false && echo no; echo status"}, stdout: "status\n"},
		{argv: []string{"sh", "-c", "false || echo yes"}, stdout: "yes\n"},
		{argv: []string{"sh", "-c", "true && exit 4; echo no"}, code: 4},
		{argv: []string{"sh", "-c", "echo a && false"}, stdout: "a\n", code: 1},
		{argv: []string{"sh", "-c", "false; true"}},
		{argv: []string{"sh", "-c", "nope; echo after"}, stdout: "after\n", stderr: "sh: 1: nope: not found\n"},
		{argv: []string{"sh", "-c", "nope"}, stderr: "sh: 1: nope: not found\n", code: 127},
		{argv: []string{"sh", "-c", "echo 'a"}, stderr: "sh: 1: Syntax error: Unterminated quoted string\n", code: 2},
		{argv: []string{"sh", "-c", "cat; echo done"}, stdin: ptrTo("in\n"), stdout: "in\ndone\n"},
		{argv: []string{"sh", "-c", `printf '%s-%d\n' a 1 >&2`}, stderr: "a-1\n"},
		{argv: []string{"sh"}, stderr: "sh: only 'sh -c SCRIPT' is supported\n", code: 2},
	} {
		var in io.Reader
		if tc.stdin != nil {
			in = strings.NewReader(*tc.stdin)
		}
		r := execute(t, tc.argv, in, false, nil)
		if code := exitCode(t, r.err); code != tc.code || r.stdout != tc.stdout || r.stderr != tc.stderr {
			t.Errorf("%q: stdout %q, stderr %q, status %d; want %q, %q, %d", tc.argv, r.stdout, r.stderr, code, tc.stdout, tc.stderr, tc.code)
		}
	}
}

func ptrTo(s string) *string { return &s }

func TestExitErrorMessage(t *testing.T) {
	r := execute(t, []string{"sh", "-c", "exit 137"}, nil, false, nil)
	if code := exitCode(t, r.err); code != 137 {
		t.Fatalf("status %d, want 137", code)
	}
	if want := "error executing command [sh -c exit 137], exit code 137"; r.err.Error() != want {
		t.Errorf("message %q, want %q", r.err, want)
	}
}

func TestUnknownCommand(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"nope", `exec: "nope": executable file not found in $PATH: unknown`},
		{"/opt/nope", `exec: "/opt/nope": stat /opt/nope: no such file or directory: unknown`},
	} {
		r := execute(t, []string{tc.name, "arg"}, nil, false, nil)
		if r.err == nil {
			t.Fatalf("%s: no error", tc.name)
		}
		if _, ok := r.err.(utilexec.ExitError); ok {
			t.Errorf("%s: an exit error (%v); want a plain error so that ServeExec reports InternalError", tc.name, r.err)
		}
		msg := r.err.Error()
		if !strings.HasPrefix(msg, "failed to exec in container: failed to start exec ") ||
			!strings.Contains(msg, "OCI runtime exec failed: exec failed: unable to start container process: "+tc.want) {
			t.Errorf("%s: message %q", tc.name, msg)
		}
	}
}

func TestTTY(t *testing.T) {
	// stderr goes to stdout on a terminal.
	r := execute(t, []string{"sh", "-c", "echo out; echo err >&2"}, nil, true, nil)
	if r.err != nil || r.stdout != "out\nerr\n" {
		t.Errorf("tty: stdout %q, error %v", r.stdout, r.err)
	}
	// tty-size: one line per size, the initial one first; stdin's EOF ends it. Stdin ends only
	// once both sizes were printed (else its end may win the race with the second size).
	resize := make(chan remotecommand.TerminalSize)
	stdinR, stdinW := io.Pipe()
	var out syncBuffer
	done := make(chan error)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		done <- executor{}.ExecInContainer(ctx, "pod", "", "c", []string{"tty-size"}, stdinR, nopCloser{&out}, nil, true, resize, 0)
	}()
	resize <- remotecommand.TerminalSize{Width: 100, Height: 40}
	resize <- remotecommand.TerminalSize{Width: 120, Height: 50}
	const want = "100x40\r\n120x50\r\n"
	for deadline := time.Now().Add(10 * time.Second); out.String() != want; {
		if time.Now().After(deadline) {
			t.Fatalf("tty-size printed %q for two sizes", out.String())
		}
		time.Sleep(time.Millisecond)
	}
	_, _ = stdinW.Write([]byte("ignored"))
	stdinW.Close()
	if err := <-done; err != nil || out.String() != want {
		t.Errorf("tty-size: stdout %q, error %v", out.String(), err)
	}
}

func TestTTYControlCharacters(t *testing.T) {
	for _, tc := range []struct {
		argv   []string
		stdin  string
		stdout string
		code   int
	}{
		{[]string{"cat"}, "ab\x04cd", "ab", 0},
		{[]string{"cat"}, "ab\x03cd", "ab", statusInterrupted},
		{[]string{"sleep", "30"}, "\x03", "", statusInterrupted},
		{[]string{"sh", "-c", "cat; echo after"}, "x\x04", "xafter\n", 0},
	} {
		start := time.Now()
		r := execute(t, tc.argv, strings.NewReader(tc.stdin), true, nil)
		if code := exitCode(t, r.err); code != tc.code || r.stdout != tc.stdout || time.Since(start) > 5*time.Second {
			t.Errorf("%q with tty stdin %q: %q, status %d; want %q, %d", tc.argv, tc.stdin, r.stdout, code, tc.stdout, tc.code)
		}
	}
	// Without a tty the bytes are data.
	r := execute(t, []string{"cat"}, strings.NewReader("a\x03\x04b"), false, nil)
	if r.err != nil || r.stdout != "a\x03\x04b" {
		t.Errorf("cat without tty: %q, %v", r.stdout, r.err)
	}
}

func TestSleepEndsAtStdinEOF(t *testing.T) {
	start := time.Now()
	r := execute(t, []string{"sleep", "30"}, strings.NewReader(""), false, nil)
	if r.err != nil || time.Since(start) > 5*time.Second {
		t.Errorf("sleep with stdin at EOF: %v after %v", r.err, time.Since(start))
	}
	// Input that no command read keeps the script's stdin open: the sleep runs its time.
	start = time.Now()
	r = execute(t, []string{"sh", "-c", "sleep 0.2; cat"}, strings.NewReader("kept"), false, nil)
	if r.err != nil || r.stdout != "kept" || time.Since(start) < 200*time.Millisecond {
		t.Errorf("sleep then cat: %q, %v after %v", r.stdout, r.err, time.Since(start))
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }
func (failWriter) Close() error              { return nil }

func TestWriteFailureStops(t *testing.T) {
	err := executor{}.ExecInContainer(context.Background(), "pod", "", "c", []string{"yes-bytes", "100000000"},
		nil, failWriter{}, nil, false, nil, 0)
	if code := exitCode(t, err); code != statusWriteFailed {
		t.Errorf("status %d, want %d", code, statusWriteFailed)
	}
	// cat stops on the failed write, not at stdin's end, which never comes.
	stdinR, stdinW := io.Pipe()
	defer stdinW.Close()
	go func() { _, _ = stdinW.Write([]byte("x")) }()
	err = executor{}.ExecInContainer(context.Background(), "pod", "", "c", []string{"sh", "-c", "cat; echo never"},
		stdinR, failWriter{}, nil, false, nil, 0)
	if code := exitCode(t, err); code != statusWriteFailed {
		t.Errorf("cat: status %d, want %d", code, statusWriteFailed)
	}
}
