package handlebars

// The syntax tree mirrors handlebars.js's own (Program, ContentStatement,
// MustacheStatement, BlockStatement, ...) so that its whitespace rules can
// be applied the same way.

// node is a statement of a program body.
type node interface{}

// program is a sequence of statements: a template, or a block's body.
type program struct {
	body []node
	// chained marks the inverse of a block written with {{else if ...}}:
	// it holds one block, the next link of the chain.
	chained     bool
	blockParams []string
	// inlines are the {{#*inline}} partials declared directly in body;
	// like handlebars.js decorators, they apply to the whole program
	// whatever their position.
	inlines map[string]*program
}

// strip records the ~ whitespace controls of a tag: open is {{~, close ~}}.
type strip struct{ open, close bool }

type content struct {
	original string
	value    string
	// leftStripped and rightStripped stop standalone rules from stripping
	// the same side twice, as in handlebars.js.
	leftStripped, rightStripped bool
}

type comment struct{ strip strip }

// pos is where a tag starts, for error messages.
type pos struct{ line, column int }

type mustache struct {
	call    call
	escaped bool
	strip   strip
	pos     pos
}

// call is a helper call or a value lookup: a path with its arguments.
type call struct {
	path   expr
	params []expr
	hash   []hashPair
}

type hashPair struct {
	key   string
	value expr
}

type blockKind int

const (
	blockHelper blockKind = iota
	blockPartial
	blockInline
)

type block struct {
	kind blockKind
	// raw marks {{{{name}}}}...{{{{/name}}}}: its body is text.
	raw     bool
	call    call
	program *program
	inverse *program
	// The ~ controls of the opening tag, the {{else}} and the closing tag.
	openStrip, inverseStrip, closeStrip strip
	pos                                 pos
}

type partial struct {
	name   expr
	params []expr
	hash   []hashPair
	strip  strip
	// indent is the whitespace before a standalone partial: every line
	// of its output is indented by it (handlebars.js does the same).
	indent string
	pos    pos
}

// expr is a value in a tag: a path, a literal or a subexpression.
type expr interface{}

type pathExpr struct {
	data  bool // @name
	depth int  // number of ../
	parts []string
	// scoped is true for this.x, ./x and paths with ../, which never name
	// a helper or a block parameter.
	scoped   bool
	original string
}

type literal struct{ value any }

// undefinedValue is JavaScript's undefined, distinct from null in string
// conversion of arrays but printed as "" on its own.
type undefinedValue struct{}

type subExpr struct{ call call }
