//go:build ignore

// reference.go renders every template in ../testdata with Node.js and the
// official @react-email/render (its Node build) into <name>.html and
// <name>.txt, the references the Go renderer must equal byte for byte. The
// JSX/TSX is compiled with the same esbuild transform as at run time, so
// the comparison is about rendering. Needs `npm ci` here and node on PATH.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "reference:", err)
		os.Exit(1)
	}
}

func run() error {
	sources, err := filepath.Glob("../testdata/*.[jt]sx")
	if err != nil {
		return err
	}
	// Inside this directory, so Node resolves the packages of node_modules.
	tmp, err := os.MkdirTemp(".", ".reference-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	args := []string{"reference.mjs"}
	for _, src := range sources {
		code, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		loader := api.LoaderJSX
		if strings.HasSuffix(src, ".tsx") {
			loader = api.LoaderTSX
		}
		out := api.Transform(string(code), api.TransformOptions{
			Loader: loader, Format: api.FormatESModule, JSX: api.JSXAutomatic, Target: api.ES2020,
		})
		if len(out.Errors) > 0 {
			return fmt.Errorf("%s: %s", src, out.Errors[0].Text)
		}
		name := strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))
		compiled := filepath.Join(tmp, name+".mjs")
		if err := os.WriteFile(compiled, out.Code, 0o644); err != nil {
			return err
		}
		args = append(args, compiled, strings.TrimSuffix(src, filepath.Ext(src)))
	}
	cmd := exec.Command("node", args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}
