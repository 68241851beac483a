package worker

import (
	"fmt"
	"os"
)

// envWorker marks a process started as a render worker. The parent sets
// it; the worker's stdin and stdout are then the protocol's pipes.
const envWorker = "CARTEIRO_RENDER_WORKER"

// init turns any binary that links this package into a render worker when
// it was started as one: carteiro itself (as "carteiro render-worker") and
// the test binaries of every package whose tests start the server, which
// would otherwise have no way to run the worker and must not fall back to
// rendering in their own process (D61). It runs before main and before
// TestMain, so no command line parsing or test run happens in a worker.
func init() {
	if os.Getenv(envWorker) != "1" {
		return
	}
	// The protocol owns stdout; anything else that prints goes to stderr.
	out := os.Stdout
	os.Stdout = os.Stderr
	if err := serve(os.Stdin, out); err != nil {
		fmt.Fprintln(os.Stderr, "render worker:", err)
		os.Exit(1)
	}
	os.Exit(0)
}
