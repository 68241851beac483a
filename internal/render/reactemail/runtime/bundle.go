//go:build ignore

// bundle.go builds runtime.js from entry.mjs (the renderer); tailwind.js,
// markdown.js and codeblock.js from their *-entry.mjs (extensions loaded
// on demand into a renderer); and formatter.js from format-entry.mjs
// (Prettier), with the npm packages pinned in package-lock.json. Run by `go generate ./internal/render/reactemail` after
// `npm ci` in this directory; the output is committed, so neither Node.js
// nor npm is needed to build or run Carteiro.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

func main() {
	bundle("entry.mjs", "runtime.js", api.FormatIIFE, []api.Plugin{noPrettier, stringChunks})
	bundle("tailwind-entry.mjs", "tailwind.js", api.FormatCommonJS, []api.Plugin{fromRuntime})
	bundle("markdown-entry.mjs", "markdown.js", api.FormatCommonJS, []api.Plugin{fromRuntime})
	bundle("codeblock-entry.mjs", "codeblock.js", api.FormatCommonJS, []api.Plugin{fromRuntime})
	bundle("format-entry.mjs", "formatter.js", api.FormatIIFE, nil)
}

func bundle(entry, out string, format api.Format, plugins []api.Plugin) {
	result := api.Build(api.BuildOptions{
		EntryPoints:       []string{entry},
		Bundle:            true,
		Format:            format,
		Platform:          api.PlatformBrowser,
		Target:            api.ES2020,
		MinifyWhitespace:  true,
		MinifySyntax:      true,
		MinifyIdentifiers: true,
		LegalComments:     api.LegalCommentsNone,
		Define:            map[string]string{"process.env.NODE_ENV": `"production"`},
		Outfile:           out,
		Write:             true,
		Plugins:           plugins,
	})
	for _, m := range result.Errors {
		fmt.Fprintf(os.Stderr, "bundle %s: %s (%v)\n", entry, m.Text, m.Location)
	}
	if len(result.Errors) > 0 {
		os.Exit(1)
	}
}

// noPrettier replaces prettier, which render() loads only for its pretty
// option (never used here), with a module that says so if it ever is.
var noPrettier = api.Plugin{
	Name: "no-prettier",
	Setup: func(b api.PluginBuild) {
		b.OnResolve(api.OnResolveOptions{Filter: `^prettier(/|$)`}, func(args api.OnResolveArgs) (api.OnResolveResult, error) {
			return api.OnResolveResult{Path: args.Path, Namespace: "no-prettier"}, nil
		})
		b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: "no-prettier"}, func(api.OnLoadArgs) (api.OnLoadResult, error) {
			contents := `export function format() { throw new Error("pretty is not available in Carteiro"); } export default {};`
			return api.OnLoadResult{Contents: &contents, Loader: api.LoaderJS}, nil
		})
	},
}

// fromRuntime points an extension's imports of React and the components at
// the objects runtime.js already holds, so components keep their identity
// (Tailwind recognises them by it); CodeBlock is the runtime's stand-in,
// which renders the real one once codeblock.js is loaded.
var fromRuntime = api.Plugin{
	Name: "from-runtime",
	Setup: func(b api.PluginBuild) {
		b.OnResolve(api.OnResolveOptions{Filter: `^(react|react/jsx-runtime|@react-email/[a-z-]+)$`}, func(args api.OnResolveArgs) (api.OnResolveResult, error) {
			if args.Kind == api.ResolveEntryPoint || args.Importer == "" || strings.HasSuffix(args.Importer, "-entry.mjs") {
				// The extension's own package.
				return api.OnResolveResult{}, nil
			}
			return api.OnResolveResult{Path: args.Path, Namespace: "from-runtime"}, nil
		})
		b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: "from-runtime"}, func(args api.OnLoadArgs) (api.OnLoadResult, error) {
			var contents string
			switch args.Path {
			case "react":
				contents = "module.exports = globalThis.__carteiroRuntime.React;"
			case "react/jsx-runtime":
				contents = "module.exports = globalThis.__carteiroRuntime.jsxRuntime;"
			case "@react-email/code-block":
				// The runtime's stand-in, whose identity Tailwind must see.
				contents = "module.exports = { CodeBlock: globalThis.__carteiroRuntime.codeBlock };"
			default:
				contents = "module.exports = globalThis.__carteiroRuntime.components;"
			}
			return api.OnLoadResult{Contents: &contents, Loader: api.LoaderJS}, nil
		})
	},
}

// bunServer is React's server renderer that writes strings (Bun's build),
// given to @react-email/render for react-dom/server; bun-prelude.js says why.
const bunServer = "node_modules/react-dom/cjs/react-dom-server.bun.production.js"

// stringChunks bundles bunServer, behind bun-prelude.js, where
// @react-email/render imports react-dom/server. The Node modules it
// requires serve only renderToPipeableStream and byte streams, which
// render() never calls: util gives the TextEncoder setup.js defines, crypto
// and stream are empty. Every other importer gets react-dom/server itself.
var stringChunks = api.Plugin{
	Name: "string-chunks",
	Setup: func(b api.PluginBuild) {
		server, err := filepath.Abs(bunServer)
		if err != nil {
			panic(err)
		}
		b.OnResolve(api.OnResolveOptions{Filter: `^react-dom/server$`}, func(args api.OnResolveArgs) (api.OnResolveResult, error) {
			if !strings.Contains(args.Importer, "@react-email/render") {
				return api.OnResolveResult{}, nil
			}
			return api.OnResolveResult{Path: server, Namespace: "string-chunks"}, nil
		})
		b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: "string-chunks"}, func(args api.OnLoadArgs) (api.OnLoadResult, error) {
			prelude, err := os.ReadFile("bun-prelude.js")
			if err != nil {
				return api.OnLoadResult{}, err
			}
			source, err := os.ReadFile(args.Path)
			if err != nil {
				return api.OnLoadResult{}, err
			}
			contents := string(prelude) + string(source)
			return api.OnLoadResult{Contents: &contents, Loader: api.LoaderJS, ResolveDir: filepath.Dir(args.Path)}, nil
		})
		b.OnResolve(api.OnResolveOptions{Filter: `^(util|crypto|stream)$`}, func(args api.OnResolveArgs) (api.OnResolveResult, error) {
			if args.Importer != server {
				return api.OnResolveResult{}, nil
			}
			return api.OnResolveResult{Path: args.Path, Namespace: "node-stand-in"}, nil
		})
		b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: "node-stand-in"}, func(args api.OnLoadArgs) (api.OnLoadResult, error) {
			contents := "module.exports = {};"
			if args.Path == "util" {
				contents = "module.exports = { TextEncoder: globalThis.TextEncoder };"
			}
			return api.OnLoadResult{Contents: &contents, Loader: api.LoaderJS}, nil
		})
	},
}
