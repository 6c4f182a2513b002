package fuse

import (
	"embed"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// Rule is one rewrite rule read from a .rules file: LHS => RHS, applied
// when every condition holds. Pattern variables $x are stored in the trees
// as identifiers _x (identifiers starting with '_' are reserved in rule
// files).
type Rule struct {
	Name  string // UpperCamel verb phrase
	Doc   string // the one-line doc comment, without the name
	Tag   string // Normalize (applied by strategies) or Explore (added to the e-graph)
	Group string // the rule file's base name: sparsity, algebra, fusion, mulnorm, ...
	Pos   string // file:line of the rule head
	LHS   sdql.Expr
	RHS   sdql.Expr
	Conds []Cond

	fresh map[string]bool // binder variables the RHS introduces (fresh names)
	subst bool            // the RHS substitutes ($b[$x := $e])
}

// Cond is a named side condition, e.g. notfree($k, $e).
type Cond struct {
	Name string
	Args []string // pattern variable names (without $) or literal words
	Vars []bool   // Vars[i]: Args[i] is a pattern variable
}

func (c Cond) String() string {
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		if c.Vars[i] {
			args[i] = "$" + a
		} else {
			args[i] = a
		}
	}
	return c.Name + "(" + strings.Join(args, ", ") + ")"
}

// The rule tags.
const (
	TagNormalize = "Normalize"
	TagExplore   = "Explore"
)

//go:embed rules/*.rules
var ruleFS embed.FS

var builtinRules []*Rule

func init() {
	rs, err := loadEmbedded()
	if err != nil {
		panic("internal error: fuse rules: " + err.Error())
	}
	builtinRules = rs
}

func loadEmbedded() ([]*Rule, error) {
	ents, err := ruleFS.ReadDir("rules")
	if err != nil {
		return nil, err
	}
	var all []*Rule
	seen := map[string]string{}
	for _, e := range ents {
		data, err := ruleFS.ReadFile("rules/" + e.Name())
		if err != nil {
			return nil, err
		}
		rs, err := ParseRules(e.Name(), string(data))
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if p, dup := seen[r.Name]; dup {
				return nil, fmt.Errorf("%s: duplicate rule name %s (first at %s)", r.Pos, r.Name, p)
			}
			seen[r.Name] = r.Pos
		}
		all = append(all, rs...)
	}
	return all, nil
}

// Rules returns the built-in rules, in file order.
func Rules() []*Rule { return append([]*Rule(nil), builtinRules...) }

// RuleByName returns the built-in rule with that name, or nil.
func RuleByName(name string) *Rule {
	for _, r := range builtinRules {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// RulesOf returns the built-in rules of a group with a tag ("" for any).
func RulesOf(group, tag string) []*Rule { return rulesOf(builtinRules, group, tag) }

func rulesOf(rules []*Rule, group, tag string) []*Rule {
	var out []*Rule
	for _, r := range rules {
		if (group == "" || r.Group == group) && (tag == "" || r.Tag == tag) {
			out = append(out, r)
		}
	}
	return out
}

// ruleError is a problem in a rule file at file:line:col.
type ruleError struct {
	file      string
	line, col int
	msg       string
}

func (e *ruleError) Error() string { return fmt.Sprintf("%s:%d:%d: %s", e.file, e.line, e.col, e.msg) }

// ParseRules parses the text of a .rules file (see rules/*.rules for the
// format). Errors are reported as file:line:col: message.
func ParseRules(file, src string) ([]*Rule, error) {
	group := strings.TrimSuffix(path.Base(file), ".rules")
	lines := strings.Split(src, "\n")
	errAt := func(line, col int, format string, args ...any) error {
		return &ruleError{file, line, col, fmt.Sprintf(format, args...)}
	}
	var rules []*Rule
	seen := map[string]int{}
	doc, docName, docLine := "", "", 0
	for i := 0; i < len(lines); i++ {
		raw := lines[i]
		l := strings.TrimSpace(raw)
		switch {
		case l == "":
			continue
		case strings.HasPrefix(l, "#"):
			text := strings.TrimSpace(strings.TrimPrefix(l, "#"))
			if n, d, ok := strings.Cut(text, ":"); ok && isUpperCamel(n) {
				docName, doc, docLine = n, strings.TrimSpace(d), i+1
			}
			continue
		case !strings.HasPrefix(l, "["):
			return nil, errAt(i+1, indentOf(raw)+1, "expected a rule head [Name, Tag], found %q", l)
		}
		head := l
		col := indentOf(raw) + 1
		if !strings.HasSuffix(head, "]") {
			return nil, errAt(i+1, col, "rule head must end with ']'")
		}
		parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(head, "["), "]"), ",")
		if len(parts) != 2 {
			return nil, errAt(i+1, col, "rule head must be [Name, Tag]")
		}
		name, tag := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1])
		if !isUpperCamel(name) {
			return nil, errAt(i+1, col+1, "rule name %q is not UpperCamel", name)
		}
		if tag != TagNormalize && tag != TagExplore {
			return nil, errAt(i+1, col+1+strings.Index(head, tag)-1, "unknown tag %q (want Normalize or Explore)", tag)
		}
		if first, dup := seen[name]; dup {
			return nil, errAt(i+1, col+1, "duplicate rule name %s (first on line %d)", name, first)
		}
		seen[name] = i + 1
		if docName != name || docLine == 0 {
			return nil, errAt(i+1, col, "rule %s needs a doc comment line '# %s: ...' just before it", name, name)
		}
		r := &Rule{Name: name, Doc: doc, Tag: tag, Group: group, Pos: fmt.Sprintf("%s:%d", file, i+1)}
		docName, docLine = "", 0
		// the body: following lines up to a blank line, comment or head
		start := i + 1
		j := start
		for j < len(lines) {
			t := strings.TrimSpace(lines[j])
			if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "[") {
				break
			}
			j++
		}
		if j == start {
			return nil, errAt(i+1, col, "rule %s has no body", name)
		}
		if err := parseRuleBody(r, file, lines, start, j); err != nil {
			return nil, err
		}
		rules = append(rules, r)
		i = j - 1
	}
	return rules, nil
}

func indentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }

func isUpperCamel(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// parseRuleBody parses lines[start:end] as "lhs => rhs [where c1, c2]".
func parseRuleBody(r *Rule, file string, lines []string, start, end int) error {
	// Blank out everything but the body so that positions stay file positions.
	text := strings.Join(lines[start:end], "\n")
	abs := func(off int) (int, int) { // offset in text -> file line, col
		line, col := start+1, 1
		for _, c := range text[:off] {
			if c == '\n' {
				line++
				col = 1
			} else {
				col++
			}
		}
		return line, col
	}
	errAt := func(off int, format string, args ...any) error {
		l, c := abs(off)
		return &ruleError{file, l, c, fmt.Sprintf(format, args...)}
	}
	arrow := strings.Index(text, "=>")
	if arrow < 0 {
		return errAt(0, "rule %s: expected 'lhs => rhs'", r.Name)
	}
	rhsEnd := len(text)
	where := findWord(text[arrow:], "where")
	if where >= 0 {
		rhsEnd = arrow + where
	}
	// pre-process pattern syntax, keeping offsets
	pre, err := preprocess(text, errAt)
	if err != nil {
		return err
	}
	parsePart := func(from, to int, what string) (sdql.Expr, error) {
		// keep the text before 'from' as blanks (newlines kept) so positions hold
		var b strings.Builder
		for _, c := range pre[:from] {
			if c == '\n' {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(pre[from:to])
		e, err := sdql.Parse("", b.String())
		if err != nil {
			if el, ok := err.(sdql.ErrorList); ok && len(el) > 0 {
				p := el[0].Pos
				return nil, &ruleError{file, start + p.Line, p.Col, fmt.Sprintf("%s of %s: %s", what, r.Name, el[0].Msg)}
			}
			return nil, errAt(from, "%s of %s: %v", what, r.Name, err)
		}
		return e, nil
	}
	if r.LHS, err = parsePart(0, arrow, "left-hand side"); err != nil {
		return err
	}
	if r.RHS, err = parsePart(arrow+2, rhsEnd, "right-hand side"); err != nil {
		return err
	}
	lhsVars, lhsBinders := patternVars(r.LHS)
	if len(lhsVars)+len(lhsBinders) == 0 && false {
		return errAt(0, "rule %s binds no variables", r.Name)
	}
	if _, ok := r.LHS.(*sdql.Ident); ok && isPatVar(r.LHS.(*sdql.Ident).Name) {
		return errAt(0, "rule %s: the left-hand side must not be a bare variable", r.Name)
	}
	bad := false
	sdql.Inspect(r.LHS, func(e sdql.Expr) bool {
		if id, ok := e.(*sdql.Ident); ok && (strings.HasPrefix(id.Name, "__zt_") && id.Name != "__zt_" || id.Name == "fold") {
			bad = true
		}
		return true
	})
	if bad {
		return errAt(0, "rule %s: typeof($x) and fold may only appear on the right-hand side (zero[typeof] on the left matches any zero)", r.Name)
	}
	// RHS variables: every $x must be bound on the left, or be a binder
	// introduced on the right (a fresh name) used inside its scope.
	r.fresh = map[string]bool{}
	var check func(e sdql.Expr, scope map[string]bool) error
	check = func(e sdql.Expr, scope map[string]bool) error {
		switch x := e.(type) {
		case *sdql.Ident:
			name := x.Name
			if b, xv, ev, isSub := substMarker(name); isSub {
				for _, v := range []string{b, xv, ev} {
					if !lhsVars[v] && !lhsBinders[v] {
						l, c := abs(offsetOf(text, arrow, x.NamePos, start))
						return &ruleError{file, l, c, fmt.Sprintf("rule %s: $%s is not bound on the left-hand side", r.Name, v)}
					}
				}
				r.subst = true
				return nil
			}
			if strings.HasPrefix(name, "__zt_") {
				name = strings.TrimPrefix(name, "__zt_")
				if name == "" {
					return nil
				}
				name = "_" + name
			}
			if isPatVar(name) {
				v := name[1:]
				if !lhsVars[v] && !lhsBinders[v] && !scope[v] {
					l, c := abs(offsetOf(text, arrow, x.NamePos, start))
					return &ruleError{file, l, c, fmt.Sprintf("rule %s: $%s is not bound on the left-hand side", r.Name, v)}
				}
			}
			return nil
		}
		for i, k := range sdql.Children(e) {
			inner := scope
			if bs := sdql.Binders(e, i); len(bs) > 0 {
				inner = map[string]bool{}
				for n := range scope {
					inner[n] = true
				}
				for _, b := range bs {
					if isPatVar(b) {
						v := b[1:]
						if !lhsBinders[v] && !lhsVars[v] {
							r.fresh[v] = true
						}
						inner[v] = true
					}
				}
			}
			if err := check(k, inner); err != nil {
				return err
			}
		}
		return nil
	}
	if err := check(r.RHS, map[string]bool{}); err != nil {
		return err
	}
	if r.Tag == TagExplore && (len(r.fresh) > 0 || r.subst) {
		return errAt(arrow, "rule %s: an Explore rule cannot introduce fresh binders or substitute", r.Name)
	}
	if where >= 0 {
		conds, err := parseConds(text, arrow+where+len("where"), errAt)
		if err != nil {
			return err
		}
		for _, c := range conds {
			for i, a := range c.Args {
				if c.Vars[i] && !lhsVars[a] && !lhsBinders[a] {
					return errAt(arrow+where, "rule %s: condition %s uses $%s, which the left-hand side does not bind", r.Name, c.Name, a)
				}
			}
		}
		r.Conds = conds
	}
	return nil
}

// offsetOf converts a position inside the parsed text (relative line/col)
// to an offset into text.
func offsetOf(text string, _ int, p sdql.Pos, _ int) int {
	line, col := 1, 1
	for off, c := range text {
		if line == p.Line && col == p.Col {
			return off
		}
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return 0
}

// findWord finds the keyword w as a whole word in s.
func findWord(s, w string) int {
	for i := 0; i+len(w) <= len(s); i++ {
		if s[i:i+len(w)] != w {
			continue
		}
		if i > 0 && isWordByte(s[i-1]) || i+len(w) < len(s) && isWordByte(s[i+len(w)]) {
			continue
		}
		return i
	}
	return -1
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// preprocess turns $x into _x and zero[typeof($x)] / zero[typeof] into
// marker identifiers of the same length, so that positions are kept.
func preprocess(text string, errAt func(int, string, ...any) error) (string, error) {
	b := []byte(text)
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '_' && (i == 0 || !isWordByte(b[i-1])) && i+1 < len(b) && isWordByte(b[i+1]) {
			return "", errAt(i, "identifiers starting with '_' are reserved for pattern variables")
		}
		if c == '$' {
			if i+1 >= len(b) || !(b[i+1] >= 'a' && b[i+1] <= 'z' || b[i+1] >= 'A' && b[i+1] <= 'Z') {
				return "", errAt(i, "'$' must start a pattern variable name")
			}
			b[i] = '_'
		}
	}
	s := string(b)
	for {
		m := substRE.FindStringIndex(s)
		if m == nil {
			break
		}
		sub := substRE.FindStringSubmatch(s[m[0]:m[1]])
		marker := "__sb_" + sub[1] + "_" + sub[2] + "_" + sub[3]
		if len(marker) > m[1]-m[0] {
			return "", errAt(m[0], "internal: substitution marker too long")
		}
		s = s[:m[0]] + marker + strings.Repeat(" ", m[1]-m[0]-len(marker)) + s[m[1]:]
	}
	for {
		i := strings.Index(s, "zero[typeof")
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], "]")
		if j < 0 {
			return "", errAt(i, "unclosed zero[typeof(...)]")
		}
		inner := strings.TrimSpace(s[i+len("zero[typeof") : i+j])
		name := ""
		if inner != "" {
			if !strings.HasPrefix(inner, "(") || !strings.HasSuffix(inner, ")") {
				return "", errAt(i, "want zero[typeof] or zero[typeof($x)]")
			}
			name = strings.TrimSpace(inner[1 : len(inner)-1])
			if !isPatVar(name) {
				return "", errAt(i, "typeof takes a pattern variable")
			}
			name = name[1:]
		}
		marker := "__zt_" + name
		if len(marker) > j+1 {
			return "", errAt(i, "internal: marker too long")
		}
		s = s[:i] + marker + strings.Repeat(" ", j+1-len(marker)) + s[i+j+1:]
	}
	return s, nil
}

// substRE matches the substitution $b[$x := $e] (after '$' became '_').
var substRE = regexp.MustCompile(`_([a-zA-Z][a-zA-Z0-9]*)\[\s*_([a-zA-Z][a-zA-Z0-9]*)\s*:=\s*_([a-zA-Z][a-zA-Z0-9]*)\s*\]`)

// substMarker splits a marker __sb_b_x_e into its variables.
func substMarker(name string) (b, x, e string, ok bool) {
	rest, ok := strings.CutPrefix(name, "__sb_")
	if !ok {
		return "", "", "", false
	}
	parts := strings.Split(rest, "_")
	if len(parts) != 3 {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

func isPatVar(name string) bool { return len(name) > 1 && name[0] == '_' && name[1] != '_' }

// patternVars returns the expression variables and binder variables of a
// pattern (names without the underscore).
func patternVars(e sdql.Expr) (vars, binders map[string]bool) {
	vars, binders = map[string]bool{}, map[string]bool{}
	sdql.Inspect(e, func(x sdql.Expr) bool {
		switch x := x.(type) {
		case *sdql.Ident:
			if isPatVar(x.Name) {
				vars[x.Name[1:]] = true
			}
		case *sdql.SumExpr:
			for _, b := range []sdql.Binder{x.Key, x.Val} {
				if isPatVar(b.Name) {
					binders[b.Name[1:]] = true
				}
			}
		case *sdql.LetExpr:
			for _, b := range x.Names {
				if isPatVar(b.Name) {
					binders[b.Name[1:]] = true
				}
			}
		}
		return true
	})
	return vars, binders
}

// parseConds parses "c1(args), c2(args)" starting at text[from:].
func parseConds(text string, from int, errAt func(int, string, ...any) error) ([]Cond, error) {
	var conds []Cond
	i := from
	skip := func() {
		for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == ',') {
			i++
		}
	}
	skip()
	if i >= len(text) {
		return nil, errAt(from, "empty where clause")
	}
	for i < len(text) {
		st := i
		for i < len(text) && isWordByte(text[i]) {
			i++
		}
		name := text[st:i]
		if name == "" || i >= len(text) || text[i] != '(' {
			return nil, errAt(st, "expected a condition name(args)")
		}
		def, ok := condRegistry[name]
		if !ok {
			return nil, errAt(st, "unknown condition %q (have %s)", name, strings.Join(condNames(), ", "))
		}
		close := strings.IndexByte(text[i:], ')')
		if close < 0 {
			return nil, errAt(i, "unclosed condition %s(", name)
		}
		var c Cond
		c.Name = name
		for _, a := range strings.Split(text[i+1:i+close], ",") {
			a = strings.TrimSpace(a)
			if a == "" {
				return nil, errAt(i, "empty argument in %s", name)
			}
			if strings.HasPrefix(a, "$") {
				c.Args = append(c.Args, a[1:])
				c.Vars = append(c.Vars, true)
			} else {
				c.Args = append(c.Args, a)
				c.Vars = append(c.Vars, false)
			}
		}
		if def.arity >= 0 && len(c.Args) != def.arity || def.arity < 0 && len(c.Args) < -def.arity {
			return nil, errAt(st, "condition %s takes %d arguments, got %d", name, iabs(def.arity), len(c.Args))
		}
		if err := def.validate(c); err != "" {
			return nil, errAt(st, "condition %s: %s", name, err)
		}
		conds = append(conds, c)
		i += close + 1
		skip()
	}
	return conds, nil
}

func iabs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func condNames() []string {
	var ns []string
	for n := range condRegistry {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}
