package handlebars

// The built-in helpers of handlebars.js 4.x. Customers cannot register
// their own: a template is data, not code.

func isHelper(name string) bool {
	switch name {
	case "if", "unless", "each", "with", "lookup", "log":
		return true
	}
	return false
}

// valueHelper runs a helper as a mustache or subexpression. Block helpers
// used that way have no body and give "", as in handlebars.js.
func (r *renderer) valueHelper(name string, args []any, hash map[string]any) (any, error) {
	switch name {
	case "lookup":
		if len(args) < 2 || args[0] == nil {
			if len(args) > 0 {
				return args[0], nil
			}
			return nil, nil
		}
		return property(args[0], toString(args[1])), nil
	case "if", "unless", "with":
		if len(args) != 1 {
			return nil, runtimeErr("#%s requires exactly one argument", name)
		}
	}
	return "", nil
}

func (r *renderer) blockHelper(name string, args []any, hash map[string]any, b *block, f *frame) error {
	switch name {
	case "if", "unless":
		if len(args) != 1 {
			return runtimeErr("#%s requires exactly one argument", name)
		}
		cond := args[0]
		includeZero := hash != nil && truthy(hash["includeZero"])
		show := !((!includeZero && !truthy(cond)) || isEmpty(cond))
		if name == "unless" {
			show = !show
		}
		if show {
			return r.run(b.program, f, f.ctx, f.data, nil)
		}
		return r.run(b.inverse, f, f.ctx, f.data, nil)
	case "with":
		if len(args) != 1 {
			return runtimeErr("#with requires exactly one argument")
		}
		if isEmpty(args[0]) {
			return r.run(b.inverse, f, f.ctx, f.data, nil)
		}
		return r.run(b.program, f, args[0], f.data, []any{args[0]})
	case "each":
		var target any
		if len(args) > 0 {
			target = args[0]
		}
		return r.each(target, b, f)
	case "lookup":
		// lookup ignores a block and prints its value.
		v, err := r.valueHelper(name, args, hash)
		if err != nil {
			return err
		}
		return r.write(toString(v))
	case "log":
		return nil
	}
	return runtimeErr("Missing helper: %q", name)
}

// each iterates arrays and objects with @index, @key, @first and @last.
func (r *renderer) each(target any, b *block, f *frame) error {
	n := 0
	if arr, ok := asArray(target); ok {
		for i, item := range arr {
			// Each iteration counts towards the time check, even with an
			// empty body: otherwise nested loops over large arrays could
			// run far past the limit between two checks.
			if err := r.tick(); err != nil {
				return err
			}
			d := f.data.child()
			d.index, d.key, d.first, d.last = float64(i), float64(i), i == 0, i == len(arr)-1
			if err := r.run(b.program, f, item, d, []any{item, float64(i)}); err != nil {
				return err
			}
		}
		n = len(arr)
	} else if keys, get, ok := asObject(target); ok {
		for i, k := range keys {
			if err := r.tick(); err != nil {
				return err
			}
			d := f.data.child()
			d.index, d.key, d.first, d.last = float64(i), k, i == 0, i == len(keys)-1
			item := get(k)
			if err := r.run(b.program, f, item, d, []any{item, k}); err != nil {
				return err
			}
		}
		n = len(keys)
	}
	if n == 0 {
		return r.run(b.inverse, f, f.ctx, f.data, nil)
	}
	return nil
}
