// SPDX-License-Identifier: Apache-2.0
package simkubelet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/tools/remotecommand"
)

// The built-in shell of simulated containers: exec runs one of these commands, written in Go,
// and never a host process. doc.go lists the contract clients rely on.

// shell is one exec session's environment: its streams, terminal and limits.
type shell struct {
	ctx    context.Context // done at the session's time limit or once a write to the client failed
	stdin  *stdinPump      // nil when the client did not ask for stdin
	stdout io.Writer       // never nil: io.Discard when stdout was not requested
	stderr io.Writer       // the same writer as stdout with a tty
	tty    bool
	sizes  <-chan remotecommand.TerminalSize // resize events (nil without a tty); closed when the client's resize stream ends
	exited bool                              // 'exit' ran: a script stops here
}

// Exit statuses with a fixed meaning.
const (
	statusWriteFailed = 141 // the client stopped reading (128 + SIGPIPE), as a real process would die
	statusTimeLimit   = 124 // the session outlived its time limit, as timeout(1) reports
	statusNotFound    = 127 // sh: a command that is not a built-in
	statusUsage       = 2   // sh: syntax error or unsupported construct
	statusInterrupted = 130 // a tty's ^C (128 + SIGINT)
)

// Causes of a session's end, told apart by exit statuses.
var (
	errWriteFailed = errors.New("write to the client failed")
	errTimeLimit   = errors.New("time limit reached")
)

// builtin runs one command; args excludes the command's name. It returns the exit status.
type builtin func(sh *shell, args []string) int

// lookupBuiltin finds a command by name. /bin/NAME and /usr/bin/NAME are the same command,
// as in an image whose PATH holds them.
func lookupBuiltin(name string) builtin {
	base := name
	for _, dir := range []string{"/bin/", "/usr/bin/"} {
		if strings.HasPrefix(name, dir) && !strings.Contains(name[len(dir):], "/") {
			base = name[len(dir):]
		}
	}
	switch base {
	case "echo":
		return builtinEcho
	case "printf":
		return builtinPrintf
	case "cat":
		return builtinCat
	case "sleep":
		return builtinSleep
	case "exit":
		return builtinExit
	case "true":
		return func(*shell, []string) int { return 0 }
	case "false":
		return func(*shell, []string) int { return 1 }
	case "tty-size":
		return builtinTTYSize
	case "head":
		return builtinHead
	case "yes-bytes":
		return builtinYesBytes
	case "sh":
		return builtinSh
	}
	return nil
}

// notFoundMessage is what exec of a missing executable reports through containerd and runc.
func notFoundMessage(name string) string {
	if strings.Contains(name, "/") {
		return fmt.Sprintf("exec: %q: stat %s: no such file or directory", name, name)
	}
	return fmt.Sprintf("exec: %q: executable file not found in $PATH", name)
}

// run runs argv as a command of its own (not inside a script).
func (sh *shell) run(argv []string) int {
	if len(argv) == 0 {
		return 0
	}
	fn := lookupBuiltin(argv[0])
	if fn == nil {
		fmt.Fprintf(sh.stderr, "%s\n", notFoundMessage(argv[0]))
		return statusNotFound
	}
	return fn(sh, argv[1:])
}

// interrupted is the status of a command stopped because the session ended.
func (sh *shell) interrupted() int {
	if errors.Is(context.Cause(sh.ctx), errWriteFailed) {
		return statusWriteFailed
	}
	return statusTimeLimit
}

// stdinEnded is closed when the client's stdin reached EOF or failed and everything it sent
// was read; nil (never ready) without stdin.
func (sh *shell) stdinEnded() <-chan struct{} {
	if sh.stdin == nil {
		return nil
	}
	return sh.stdin.ended
}

// write writes to w and reports whether the session may go on.
func (sh *shell) write(w io.Writer, s string) bool {
	_, err := io.WriteString(w, s)
	return err == nil && sh.ctx.Err() == nil
}

func builtinEcho(sh *shell, args []string) int {
	newline := true
	if len(args) > 0 && args[0] == "-n" {
		newline, args = false, args[1:]
	}
	out := strings.Join(args, " ")
	if newline {
		out += "\n"
	}
	if !sh.write(sh.stdout, out) {
		return sh.interrupted()
	}
	return 0
}

func builtinPrintf(sh *shell, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(sh.stderr, "printf: usage: printf format [arg ...]")
		return statusUsage
	}
	out, err := formatPrintf(args[0], args[1:])
	status := 0
	if err != nil {
		fmt.Fprintf(sh.stderr, "printf: %v\n", err)
		status = 1
	}
	if !sh.write(sh.stdout, out) {
		return sh.interrupted()
	}
	return status
}

// formatPrintf applies printf's format to args: %s, %d, %% and the escapes \n \t \r \\. As
// POSIX printf does, the format is reused while arguments remain; a missing argument is
// empty (%s) or 0 (%d). The error is the first bad number or directive; the output is
// produced regardless, as a shell's printf does.
func formatPrintf(format string, args []string) (string, error) {
	var b strings.Builder
	var firstErr error
	for {
		used := false
		for i := 0; i < len(format); i++ {
			ch := format[i]
			switch {
			case ch == '\\' && i+1 < len(format):
				i++
				switch format[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case 'r':
					b.WriteByte('\r')
				case '\\':
					b.WriteByte('\\')
				default:
					b.WriteByte('\\')
					b.WriteByte(format[i])
				}
			case ch == '%' && i+1 < len(format):
				i++
				switch format[i] {
				case '%':
					b.WriteByte('%')
				case 's', 'd':
					arg := ""
					if len(args) > 0 {
						arg, args, used = args[0], args[1:], true
					}
					if format[i] == 's' {
						b.WriteString(arg)
						break
					}
					n := int64(0)
					if arg != "" {
						var err error
						if n, err = strconv.ParseInt(strings.TrimPrefix(arg, "+"), 10, 64); err != nil && firstErr == nil {
							firstErr = fmt.Errorf("%s: expected numeric value", arg)
						}
					}
					b.WriteString(strconv.FormatInt(n, 10))
				default:
					if firstErr == nil {
						firstErr = fmt.Errorf("%%%c: invalid directive", format[i])
					}
					return b.String(), firstErr
				}
			default:
				b.WriteByte(ch)
			}
		}
		if len(args) == 0 || !used {
			return b.String(), firstErr
		}
	}
}

func builtinCat(sh *shell, args []string) int {
	if len(args) > 0 && args[0] != "-" {
		fmt.Fprintf(sh.stderr, "cat: %s: No such file or directory\n", args[0])
		return 1
	}
	if sh.stdin == nil {
		return 0
	}
	return sh.copyStdin(-1)
}

// copyStdin copies stdin to stdout until EOF, or n bytes when n >= 0.
func (sh *shell) copyStdin(n int64) int {
	buf := make([]byte, 32<<10)
	for n != 0 {
		want := buf
		if n > 0 && n < int64(len(buf)) {
			want = buf[:n]
		}
		got, err := sh.stdin.read(sh.ctx, want)
		if got > 0 {
			if _, werr := sh.stdout.Write(want[:got]); werr != nil {
				return sh.interrupted()
			}
			if n > 0 {
				n -= int64(got)
			}
		}
		if err == io.EOF {
			return 0
		}
		if err != nil {
			return sh.interrupted()
		}
	}
	return 0
}

func builtinHead(sh *shell, args []string) int {
	if len(args) != 2 || args[0] != "-c" {
		fmt.Fprintln(sh.stderr, "head: only 'head -c N' is supported")
		return 1
	}
	n, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil || n < 0 {
		fmt.Fprintf(sh.stderr, "head: invalid number of bytes: '%s'\n", args[1])
		return 1
	}
	if sh.stdin == nil || n == 0 {
		return 0
	}
	return sh.copyStdin(n)
}

// patternBlock is the start of the byte pattern i = 'a' + i%26; its length is a multiple of 26,
// so that writing it again and again continues the pattern.
var patternBlock = func() []byte {
	b := make([]byte, 26*1260) // 32,760 bytes
	for i := range b {
		b[i] = byte('a' + i%26)
	}
	return b
}()

// writePattern writes n bytes of the pattern to w.
func writePattern(w io.Writer, n int64) error {
	for n > 0 {
		chunk := patternBlock
		if n < int64(len(chunk)) {
			chunk = chunk[:n]
		}
		if _, err := w.Write(chunk); err != nil {
			return err
		}
		n -= int64(len(chunk))
	}
	return nil
}

func builtinYesBytes(sh *shell, args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(sh.stderr, "yes-bytes: usage: yes-bytes N")
		return 1
	}
	n, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil || n < 0 {
		fmt.Fprintf(sh.stderr, "yes-bytes: invalid number of bytes: '%s'\n", args[0])
		return 1
	}
	if err := writePattern(ctxWriter{sh.ctx, sh.stdout}, n); err != nil {
		return sh.interrupted()
	}
	return 0
}

// ctxWriter fails once ctx is done, so that long writers stop at the time limit.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

func builtinSleep(sh *shell, args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(sh.stderr, "sleep: usage: sleep SECONDS")
		return 1
	}
	secs, err := strconv.ParseFloat(args[0], 64)
	if err != nil || secs < 0 || math.IsNaN(secs) || math.IsInf(secs, 0) {
		fmt.Fprintf(sh.stderr, "sleep: invalid time interval '%s'\n", args[0])
		return 1
	}
	d := time.Duration(secs * float64(time.Second))
	if secs*float64(time.Second) > float64(math.MaxInt64) {
		d = math.MaxInt64
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return 0
	case <-sh.stdinEnded():
		// The client closed stdin or went away: nothing would ever read what follows.
		return 0
	case <-sh.ctx.Done():
		return sh.interrupted()
	}
}

func builtinExit(sh *shell, args []string) int {
	sh.exited = true
	if len(args) == 0 {
		return 0
	}
	n, err := strconv.ParseUint(args[0], 10, 64)
	if err != nil {
		fmt.Fprintf(sh.stderr, "sh: 1: exit: Illegal number: %s\n", args[0])
		return statusUsage
	}
	return int(n % 256)
}

// builtinTTYSize prints the terminal size for every size the client sends (the first is the
// initial size) until stdin ends (or, without stdin, the client's resize stream ends).
func builtinTTYSize(sh *shell, _ []string) int {
	if !sh.tty || sh.sizes == nil {
		fmt.Fprintln(sh.stderr, "tty-size: not a tty")
		return 1
	}
	// Drain stdin, so that its end is seen even when the client sends input.
	drained := make(chan struct{})
	if sh.stdin != nil {
		go func() {
			defer close(drained)
			buf := make([]byte, 4096)
			for {
				if _, err := sh.stdin.read(sh.ctx, buf); err != nil {
					return
				}
			}
		}()
	}
	sizes := sh.sizes
	for {
		select {
		case size, ok := <-sizes:
			if !ok {
				if sh.stdin == nil {
					return 0
				}
				sizes = nil // keep waiting for stdin's end
				continue
			}
			if !sh.write(sh.stdout, fmt.Sprintf("%dx%d\r\n", size.Width, size.Height)) {
				return sh.interrupted()
			}
		case <-drained:
			if sh.ctx.Err() != nil {
				return sh.interrupted()
			}
			return 0
		case <-sh.ctx.Done():
			return sh.interrupted()
		}
	}
}

// builtinSh runs 'sh -c SCRIPT [NAME [ARG...]]' (NAME and ARGs are accepted and ignored).
func builtinSh(sh *shell, args []string) int {
	if len(args) < 2 || args[0] != "-c" {
		fmt.Fprintln(sh.stderr, "sh: only 'sh -c SCRIPT' is supported")
		return statusUsage
	}
	script, err := parseScript(args[1])
	if err != nil {
		fmt.Fprintf(sh.stderr, "sh: 1: %v\n", err)
		return statusUsage
	}
	return sh.runScript(script)
}

// scriptStep is one simple command of a script and how it joins the previous one.
type scriptStep struct {
	op             string // "" (first), ";", "&&" or "||"
	words          []string
	stdoutToStderr bool // >&2 or 1>&2
	stderrToStdout bool // 2>&1
}

// runScript runs the steps as an and-or list: '&&' runs the next command only after a zero
// status, '||' only after a non-zero one, ';' always. The status is the last command's.
func (sh *shell) runScript(steps []scriptStep) int {
	status := 0
	for _, st := range steps {
		if (st.op == "&&" && status != 0) || (st.op == "||" && status == 0) {
			continue
		}
		if len(st.words) == 0 {
			continue
		}
		sub := *sh
		if st.stdoutToStderr {
			sub.stdout = sh.stderr
		}
		if st.stderrToStdout {
			sub.stderr = sub.stdout
		}
		fn := lookupBuiltin(st.words[0])
		if fn == nil {
			fmt.Fprintf(sub.stderr, "sh: 1: %s: not found\n", st.words[0])
			status = statusNotFound
		} else {
			status = fn(&sub, st.words[1:])
		}
		if sub.exited {
			return status
		}
		if sh.ctx.Err() != nil {
			return sh.interrupted()
		}
	}
	return status
}

// parseScript splits a script into simple commands separated by ';', newlines, '&&' and '||'.
// Words are split on blanks; '...' keeps everything literally, "..." keeps everything but \"
// and \\, and a backslash outside quotes escapes the next character. An unquoted '>&2' or
// '1>&2' sends the command's stdout to stderr, '2>&1' its stderr to stdout. Pipes, other
// redirections, background jobs and expansions are not supported ($ is literal).
func parseScript(src string) ([]scriptStep, error) {
	var steps []scriptStep
	cur := scriptStep{}
	var word strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			cur.words = append(cur.words, word.String())
			word.Reset()
			inWord = false
		}
	}
	endStep := func(op string) error {
		endWord()
		if len(cur.words) == 0 && op != ";" {
			return fmt.Errorf("Syntax error: %q unexpected", op)
		}
		steps = append(steps, cur)
		cur = scriptStep{op: op}
		return nil
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(src[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("Syntax error: Unterminated quoted string")
			}
			word.WriteString(src[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' && i+1 < len(src) && (src[i+1] == '"' || src[i+1] == '\\') {
					i++
				}
				word.WriteByte(src[i])
			}
			if i >= len(src) {
				return nil, errors.New("Syntax error: Unterminated quoted string")
			}
		case c == '\\':
			if i+1 < len(src) {
				i++
				if src[i] != '\n' {
					word.WriteByte(src[i])
					inWord = true
				}
			}
		case c == ' ' || c == '\t':
			endWord()
		case c == '\n' || c == ';':
			if err := endStep(";"); err != nil {
				return nil, err
			}
		case c == '&' || c == '|':
			if i+1 < len(src) && src[i+1] == c {
				if err := endStep(src[i : i+2]); err != nil {
					return nil, err
				}
				i++
				continue
			}
			if c == '|' {
				return nil, errors.New("pipes are not supported")
			}
			return nil, errors.New("background jobs (&) are not supported")
		case c == '>' || c == '<' || (!inWord && (c == '1' || c == '2') && i+1 < len(src) && (src[i+1] == '>' || src[i+1] == '<')):
			endWord()
			switch {
			case strings.HasPrefix(src[i:], ">&2"), strings.HasPrefix(src[i:], "1>&2"):
				cur.stdoutToStderr = true
			case strings.HasPrefix(src[i:], "2>&1"):
				cur.stderrToStdout = true
			default:
				return nil, fmt.Errorf("redirection %q is not supported (only >&2, 1>&2 and 2>&1)", strings.Fields(src[i:])[0])
			}
			if c == '>' {
				i += 2
			} else {
				i += 3
			}
		case c == '`' || c == '(' || c == ')':
			return nil, fmt.Errorf("%q is not supported", string(c))
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	endWord()
	if len(cur.words) == 0 && (cur.op == "&&" || cur.op == "||") {
		return nil, errors.New("Syntax error: end of file unexpected")
	}
	if len(cur.words) > 0 {
		steps = append(steps, cur)
	}
	return steps, nil
}
