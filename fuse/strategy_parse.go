package fuse

import (
	"fmt"
	"strings"
)

// ParseStrategy parses a strategy written as text:
//
//	s    := step { ("<+" | ";") step }     left choice and sequence, left to right
//	step := NAME "(" s { "," s } ")" | RuleName | group:NAME | id | fail | InlineLet | ANF | ResolveMembership | GroupByKey
//
// with NAME one of try, repeat, one, all, topDown, bottomUp, everywhere,
// innermost, normalize, normalizeInnermost, seq, choice; group:NAME is the
// left choice of the Normalize rules of a rule file.
func ParseStrategy(src string) (Strategy, error) {
	p := &stratParser{src: src}
	s, err := p.choice()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos < len(p.src) {
		return nil, fmt.Errorf("strategy:%d: unexpected %q", p.pos+1, p.src[p.pos:])
	}
	return s, nil
}

type stratParser struct {
	src string
	pos int
}

func (p *stratParser) space() {
	for p.pos < len(p.src) && strings.ContainsRune(" \t\n", rune(p.src[p.pos])) {
		p.pos++
	}
}

func (p *stratParser) errorf(format string, args ...any) error {
	return fmt.Errorf("strategy:%d: %s", p.pos+1, fmt.Sprintf(format, args...))
}

func (p *stratParser) choice() (Strategy, error) {
	s, err := p.step()
	if err != nil {
		return nil, err
	}
	for {
		p.space()
		switch {
		case strings.HasPrefix(p.src[p.pos:], "<+"):
			p.pos += 2
			t, err := p.step()
			if err != nil {
				return nil, err
			}
			s = Choice(s, t)
		case strings.HasPrefix(p.src[p.pos:], ";"):
			p.pos++
			t, err := p.step()
			if err != nil {
				return nil, err
			}
			s = Seq(s, t)
		default:
			return s, nil
		}
	}
}

var unaryStrategies = map[string]func(Strategy) Strategy{
	"try": Try, "repeat": Repeat, "one": One, "all": All, "topDown": TopDown, "bottomUp": BottomUp,
	"everywhere": Everywhere, "innermost": Innermost, "normalize": Normalize, "normalizeInnermost": NormalizeInnermost,
}

func (p *stratParser) step() (Strategy, error) {
	p.space()
	start := p.pos
	for p.pos < len(p.src) && (isWordByte(p.src[p.pos]) || p.src[p.pos] == ':') {
		p.pos++
	}
	name := p.src[start:p.pos]
	if name == "" {
		if p.pos < len(p.src) && p.src[p.pos] == '(' {
			p.pos++
			s, err := p.choice()
			if err != nil {
				return nil, err
			}
			p.space()
			if p.pos >= len(p.src) || p.src[p.pos] != ')' {
				return nil, p.errorf("expected ')'")
			}
			p.pos++
			return s, nil
		}
		return nil, p.errorf("expected a strategy")
	}
	p.space()
	if p.pos < len(p.src) && p.src[p.pos] == '(' {
		p.pos++
		var args []Strategy
		for {
			s, err := p.choice()
			if err != nil {
				return nil, err
			}
			args = append(args, s)
			p.space()
			if p.pos < len(p.src) && p.src[p.pos] == ',' {
				p.pos++
				continue
			}
			break
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ')' {
			return nil, p.errorf("expected ')' to close %s(", name)
		}
		p.pos++
		if f, ok := unaryStrategies[name]; ok {
			if len(args) != 1 {
				return nil, p.errorf("%s takes one strategy", name)
			}
			return f(args[0]), nil
		}
		switch name {
		case "seq":
			return Seq(args...), nil
		case "choice":
			return Choice(args...), nil
		}
		return nil, p.errorf("unknown combinator %s", name)
	}
	switch {
	case name == "id":
		return Id, nil
	case name == "fail":
		return Fail, nil
	case name == "InlineLet":
		return InlineLet, nil
	case name == "ANF":
		return ANF, nil
	case name == "ResolveMembership":
		return ResolveMembership, nil
	case name == "GroupByKey":
		return GroupByKey, nil
	case strings.HasPrefix(name, "group:"):
		rs := RulesOf(strings.TrimPrefix(name, "group:"), TagNormalize)
		if len(rs) == 0 {
			return nil, p.errorf("no Normalize rules in group %s", strings.TrimPrefix(name, "group:"))
		}
		return ApplyAny(rs), nil
	}
	if r := RuleByName(name); r != nil {
		return Apply(r), nil
	}
	return nil, p.errorf("unknown rule or strategy %s", name)
}
