package reactemail

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/dop251/goja"
)

//go:embed runtime/tailwind.js
var tailwindJS string

//go:embed runtime/markdown.js
var markdownJS string

//go:embed runtime/codeblock.js
var codeblockJS string

// extension is a part of React Email kept out of the runtime because it is
// slow to start in the engine: loaded into an engine the first time a
// template uses one of its exports.
type extension struct {
	name    string
	source  string
	exports []string
	// packageName is its @react-email package.
	packageName string
}

// extensions are Tailwind, Markdown and CodeBlock (with Prism's themes).
var extensions = []extension{
	{name: "tailwind", source: tailwindJS, packageName: "tailwind", exports: []string{"Tailwind", "pixelBasedPreset"}},
	{name: "markdown", source: markdownJS, packageName: "markdown", exports: []string{"Markdown"}},
	{name: "codeblock", source: codeblockJS, packageName: "code-block", exports: []string{
		"CodeBlock", "a11yDark", "atomDark", "baseAteliersulphurpoolLight", "cb", "coldarkCold", "coldarkDark",
		"coyWithoutShadows", "darcula", "dracula", "duotoneDark", "duotoneEarth", "duotoneForest", "duotoneLight",
		"duotoneSea", "duotoneSpace", "ghcolors", "gruvboxDark", "gruvboxLight", "holiTheme", "hopscotch", "laserwave",
		"lucario", "materialDark", "materialLight", "materialOceanic", "nightOwl", "nord", "oneDark", "oneLight",
		"pojoaque", "shadesOfPurple", "solarizedDarkAtom", "synthwave84", "vesper", "vs", "vscDarkPlus", "xonokai", "zTouch",
	}},
}

// extensionHook is the function a compiled template calls for an
// extension's export. The calls are marked pure, so esbuild drops them from
// templates that do not use them, and their presence in the output tells
// the engine which extensions to load first.
const extensionHook = "__carteiroExtension"

// extensionModule exports ext's names through the hook.
func extensionModule(ext extension) string {
	var b strings.Builder
	for _, n := range ext.exports {
		fmt.Fprintf(&b, "export const %s = /* @__PURE__ */ %s(%q, %q);\n", n, extensionHook, ext.name, n)
	}
	return b.String()
}

// extensionByPackage finds the extension of an @react-email package.
func extensionByPackage(pkg string) (extension, bool) {
	for _, ext := range extensions {
		if ext.packageName == pkg {
			return ext, true
		}
	}
	return extension{}, false
}

// extensionsUsed lists the extensions compiled template code calls for.
func extensionsUsed(code string) []string {
	var used []string
	for _, ext := range extensions {
		if strings.Contains(code, extensionHook+`("`+ext.name+`"`) {
			used = append(used, ext.name)
		}
	}
	sort.Strings(used)
	return used
}

// extensionPrograms compiles each extension, wrapped as a module function,
// on first use.
type extensionPrograms struct {
	mu       sync.Mutex
	programs map[string]*goja.Program
}

func (p *extensionPrograms) get(name string) (*goja.Program, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if prog, ok := p.programs[name]; ok {
		return prog, nil
	}
	for _, ext := range extensions {
		if ext.name == name {
			prog, err := goja.Compile(name+".js", "(function (module, exports) {\n"+ext.source+"\n})", false)
			if err != nil {
				return nil, fmt.Errorf("reactemail: compile %s: %w", name, err)
			}
			if p.programs == nil {
				p.programs = map[string]*goja.Program{}
			}
			p.programs[name] = prog
			return prog, nil
		}
	}
	return nil, fmt.Errorf("reactemail: no extension %q", name)
}

// loadExtension loads an extension into this engine once, outside any
// template's time limit (it runs only our bundles): Tailwind is warmed up
// with a render, CodeBlock is handed to the runtime's stand-in.
func (e *engine) loadExtension(name string) error {
	if _, ok := e.extensions[name]; ok {
		return nil
	}
	program, err := e.progs.extensions.get(name)
	if err != nil {
		return err
	}
	factory, err := e.vm.RunProgram(program)
	if err != nil {
		return fmt.Errorf("reactemail: load %s: %w", name, err)
	}
	load, _ := goja.AssertFunction(e.api.Get("loadExtension"))
	exports, err := load(goja.Undefined(), factory)
	if err != nil {
		return fmt.Errorf("reactemail: load %s: %w", name, err)
	}
	switch name {
	case "tailwind":
		warm, _ := goja.AssertFunction(e.api.Get("warmTailwind"))
		state, err := e.settle(warm, exports)
		if err != nil {
			return fmt.Errorf("reactemail: warm tailwind: %w", err)
		}
		if msg := state.Get("error").String(); msg != "" {
			return fmt.Errorf("reactemail: warm tailwind: %s", msg)
		}
	case "codeblock":
		if _, err := e.setCodeBlock(goja.Undefined(), exports.ToObject(e.vm).Get("CodeBlock")); err != nil {
			return fmt.Errorf("reactemail: load codeblock: %w", err)
		}
	}
	e.extensions[name] = exports
	return nil
}

// loadedExtensions is the object a template's hook reads exports from.
func (e *engine) loadedExtensions() goja.Value {
	o := e.vm.NewObject()
	for name, exports := range e.extensions {
		_ = o.Set(name, exports)
	}
	return o
}
