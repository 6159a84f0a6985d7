// SPDX-License-Identifier: Apache-2.0
// Package simkubelet simulates Kubernetes nodes behind a real kube-apiserver: it registers
// Nodes with a realistic status and renews their Leases, drives pods bound to them through
// a kubelet-like lifecycle (Running with container IDs, IPs and conditions; graceful
// deletion completed), and serves the kubelet HTTPS API the apiserver proxies to:
// containerLogs (with follow), exec, attach and portForward. No container and no host
// process runs: each container is a record with a log file that annotations can make grow,
// exec runs a small shell written in Go, and port-forwards reach two servers on 127.0.0.1.
// Clients' tests rely on the contract below.
//
// # Streaming
//
// Routes are the kubelet's, GET and POST: /exec/{ns}/{pod}[/{uid}]/{container},
// /attach/{ns}/{pod}[/{uid}]/{container}, /portForward/{ns}/{pod}[/{uid}]. They are served by
// k8s.io/kubelet/pkg/cri/streaming: SPDY/3.1 (remotecommand v4..v1, portforward.k8s.io) and
// the legacy WebSocket channel protocols. kube-apiserver 1.35 turns WebSocket v5.channel.k8s.io
// exec/attach and the SPDY/3.1+portforward.k8s.io WebSocket tunnel into SPDY towards this
// server, and passes the older WebSocket protocols through. Sessions close after 4 h without
// traffic; a client has 30 s to open a session's streams.
//
// Errors before a session starts are the kubelet's: a pod this node does not run is 404 "pod
// does not exist"; an exec into a container that is not running in the pod (unknown name,
// init container, exited, or a {uid} that is not the pod's) is 500 `container not found
// ("NAME")`; attach says 500 "container NAME not found in pod POD_NAMESPACE". Through the
// apiserver, unknown containers are already refused there (400 "container NAME is not valid
// for pod POD").
//
// # Exec: the built-in commands
//
// The command is one of these built-ins (a leading /bin/ or /usr/bin/ is accepted):
//
//	echo [-n] ARGS...     ARGS joined by spaces, then a newline (none with -n)
//	printf FORMAT ARGS... %s, %d, %% and the escapes \n \t \r \\; the format is reused while
//	                      ARGS remain; a bad number prints 0 and exits 1
//	cat                   stdin to stdout until stdin's EOF, then exit 0; exits 0 at once
//	                      without stdin; cat FILE fails (no files)
//	head -c N             N bytes of stdin to stdout (fewer at EOF), then exit 0
//	yes-bytes N           N bytes of the pattern byte i = 'a' + i%26 to stdout, then exit 0
//	sleep SECONDS         fractional allowed; ends early, with 0, when stdin (if requested)
//	                      reaches EOF or fails
//	exit N                exits with N % 256
//	true, false           0 and 1
//	tty-size              needs a tty (else exit 1); prints "WIDTHxHEIGHT\r\n" (e.g.
//	                      "100x40\r\n") for the initial size and every resize the client
//	                      sends; exits 0 when stdin reaches EOF (without stdin: when the
//	                      client's resize stream ends)
//	sh -c SCRIPT          commands of this list separated by ';', newlines, '&&' and '||'
//	                      (and-or list: the status is the last command run's); words split
//	                      on blanks, '...' literal, "..." with \" and \\, \x outside quotes;
//	                      a trailing >&2 (or 1>&2) sends a command's stdout to stderr, 2>&1
//	                      its stderr to stdout; exit N ends the script; an unknown command
//	                      prints "sh: 1: NAME: not found" to stderr and has status 127;
//	                      pipes, other redirections, $ expansion and & are not supported
//	                      (status 2, message on stderr)
//
// Exit status 0 is Success; any other status reaches the client as NonZeroExitCode with an
// ExitCode cause (`exit 137` arrives as 137), the message "command terminated with non-zero
// exit code: error executing command [ARGV...], exit code N". A command that is not a
// built-in fails as containerd reports it (an InternalError status): "error executing command
// in container: failed to exec in container: failed to start exec "ID": OCI runtime exec
// failed: exec failed: unable to start container process: exec: "NAME": executable file not
// found in $PATH: unknown".
//
// With a tty, stderr is merged into stdout, as on a terminal; output is not translated
// (echo writes "\n", tty-size writes "\r\n"); input byte ^D (0x04) ends stdin and ^C (0x03)
// ends it and makes the status 130, as a terminal's line discipline would (no echo, no line
// editing). Every command stops when a write to the client fails (status 141) and every
// session ends after 4 h (status 124); commands that read stdin read it with back-pressure
// (at most 32 KiB is read ahead).
//
// # Attach
//
// Attach joins a container's simulated main process (see attacher): output from now on (the
// same writer that feeds the log file, e.g. AnnotationLogInterval's lines); stdin, with
// AnnotationAttach "echo" and spec stdin: true, echoed to stdout and to the log (kubectl logs
// shows it). The session ends once the client's stdin ends and its echo was delivered, or when
// the container exits. Attaching stdin to a container whose spec has stdin: false is refused
// before the session starts (500 "container NAME in pod POD_NAMESPACE does not accept input:
// ..."); real container runtimes silently drop such input instead.
//
// # Port-forward
//
// A TCP port declared by one of the pod's containers goes to an HTTP server when the port's
// name starts with "http" (GET / answers "hello from simkubelet\n", GET /bytes/N answers N
// bytes of the pattern byte i = 'a' + i%26 with Content-Length), and to a TCP echo server
// otherwise (every byte comes back; when the client closes its write side, the rest comes
// back and the server closes). An undeclared port is closed: after 100 ms, the stream's
// error reads "error forwarding port P to pod SANDBOX, uid : failed to connect to
// localhost:P inside namespace "SANDBOX", IPv4: dial tcp4 127.0.0.1:P: connect: connection
// refused IPv6 dial tcp6 [::1]:P: connect: connection refused ", as containerd's, and the
// streams are reset. Both directions copy with half-close and back-pressure. Nothing dials
// anything but these two servers on 127.0.0.1.
package simkubelet
