package reactemail

import (
	"container/list"
	"crypto/sha256"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/dop251/goja"
	"github.com/evanw/esbuild/pkg/api"

	"github.com/carteiro/carteiro/internal/render"
)

// componentNames are the @react-email components the runtime holds (see
// runtime/entry.mjs); importing any other name fails to compile.
var componentNames = []string{
	"Body", "Button", "CodeInline", "Column", "Container", "Font", "Head", "Heading", "Hr", "Html",
	"Img", "Link", "Preview", "Row", "Section", "Text",
}

// template is a compiled source: a CommonJS module wrapped in a function,
// compiled once for every engine.
type template struct {
	key     [32]byte
	program *goja.Program
	// extensions are those the template uses, loaded before it runs.
	extensions []string
}

// compile turns JSX/TSX into a program, or a *render.SyntaxError.
func (r *Renderer) compile(src string) (*template, error) {
	key := sha256.Sum256([]byte(src))
	if t := r.compiled.get(key); t != nil {
		return t, nil
	}
	result := api.Build(api.BuildOptions{
		Stdin: &api.StdinOptions{
			Contents:   src,
			Sourcefile: "template.tsx",
			Loader:     api.LoaderTSX,
		},
		Bundle:   true,
		Format:   api.FormatCommonJS,
		Platform: api.PlatformNeutral,
		Target:   api.ES2020,
		JSX:      api.JSXAutomatic,
		Write:    false,
		LogLevel: api.LogLevelSilent,
		Plugins:  []api.Plugin{runtimeImports},
	})
	if len(result.Errors) > 0 {
		return nil, syntaxError(result.Errors[0])
	}
	if len(result.OutputFiles) != 1 {
		return nil, renderErr("compiling the template produced %d files", len(result.OutputFiles))
	}
	out := string(result.OutputFiles[0].Contents)
	code := "(function (module, exports, " + extensionHook + ") {\n" + out + "\n})"
	program, err := goja.Compile("template.js", code, true)
	if err != nil {
		return nil, &render.SyntaxError{Line: 1, Column: 1, Reason: "the compiled template does not run: " + err.Error()}
	}
	t := &template{key: key, program: program, extensions: extensionsUsed(out)}
	r.compiled.put(key, t)
	return t, nil
}

func syntaxError(m api.Message) error {
	e := &render.SyntaxError{Line: 1, Column: 1, Reason: m.Text}
	if m.Location != nil {
		e.Line, e.Column = m.Location.Line, m.Location.Column+1
	}
	return e
}

// runtimeImports maps the imports a template may make to the runtime's
// objects and refuses every other one, so a template is one file that
// reaches nothing but React and the components.
var runtimeImports = api.Plugin{
	Name: "carteiro-runtime",
	Setup: func(b api.PluginBuild) {
		b.OnResolve(api.OnResolveOptions{Filter: `.*`}, func(args api.OnResolveArgs) (api.OnResolveResult, error) {
			if args.Kind == api.ResolveEntryPoint {
				return api.OnResolveResult{}, nil
			}
			switch {
			case args.Path == "react", args.Path == "react/jsx-runtime", args.Path == "react/jsx-dev-runtime",
				args.Path == "@react-email/components":
				return api.OnResolveResult{Path: args.Path, Namespace: "carteiro"}, nil
			case strings.HasPrefix(args.Path, "@react-email/"):
				if _, ok := extensionByPackage(strings.TrimPrefix(args.Path, "@react-email/")); ok {
					return api.OnResolveResult{Path: args.Path, Namespace: "carteiro"}, nil
				}
				if name, ok := packageComponent(strings.TrimPrefix(args.Path, "@react-email/")); ok {
					return api.OnResolveResult{Path: args.Path, Namespace: "carteiro", PluginData: name}, nil
				}
			}
			return api.OnResolveResult{}, fmt.Errorf("cannot import %q: a template may import only react and @react-email/components", args.Path)
		})
		b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: "carteiro"}, func(args api.OnLoadArgs) (api.OnLoadResult, error) {
			var contents string
			switch args.Path {
			case "react":
				contents = "module.exports = globalThis.__carteiroRuntime.React;"
			case "react/jsx-runtime", "react/jsx-dev-runtime":
				contents = "module.exports = globalThis.__carteiroRuntime.jsxRuntime;"
			case "@react-email/components":
				contents = componentsModule(componentNames)
				for _, ext := range extensions {
					contents += extensionModule(ext)
				}
			default:
				if ext, ok := extensionByPackage(strings.TrimPrefix(args.Path, "@react-email/")); ok {
					contents = extensionModule(ext)
					break
				}
				contents = componentsModule([]string{args.PluginData.(string)})
			}
			return api.OnLoadResult{Contents: &contents, Loader: api.LoaderJS}, nil
		})
	},
}

// componentsModule is an ES module with one named export per component, so
// importing a name the runtime lacks is a compile error with a position.
func componentsModule(names []string) string {
	var b strings.Builder
	b.WriteString("const c = globalThis.__carteiroRuntime.components;\n")
	for _, n := range names {
		fmt.Fprintf(&b, "export const %s = c.%s;\n", n, n)
	}
	return b.String()
}

// packageComponent maps an individual package ("code-inline") to its
// component ("CodeInline").
func packageComponent(pkg string) (string, bool) {
	var b strings.Builder
	for _, part := range strings.Split(pkg, "-") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	name := b.String()
	i := sort.SearchStrings(componentNames, name)
	return name, i < len(componentNames) && componentNames[i] == name
}

// compileCache is a small LRU of compiled templates by source hash.
type compileCache struct {
	mu    sync.Mutex
	max   int
	order *list.List
	items map[[32]byte]*list.Element
}

func newCompileCache(max int) *compileCache {
	return &compileCache{max: max, order: list.New(), items: map[[32]byte]*list.Element{}}
}

func (c *compileCache) get(key [32]byte) *template {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*template)
	}
	return nil
}

func (c *compileCache) put(key [32]byte, t *template) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[key]; ok {
		return
	}
	c.items[key] = c.order.PushFront(t)
	if c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*template).key)
	}
}
