//go:build race

package worker

// raceEnabled: under the race detector a worker takes seconds to start and
// goja runs 10 to 20 times slower, so the hostile-template tests keep their
// memory bounds but not their timings (D61).
const raceEnabled = true
