package lower

// MarkPrimitives marks every loop of the program a rule matches.
func MarkPrimitives(p *Program) {
	var walk func(s Stmt)
	walk = func(s Stmt) {
		switch s := s.(type) {
		case *Block:
			for _, x := range s.List {
				walk(x)
			}
		case *If:
			walk(s.Then)
			walk(s.Else)
		case *For:
			s.Prim = primitive(s)
			if s.Prim == nil {
				walk(s.Body)
			}
		case *ForLevel:
			walk(s.Body)
		case *Search:
			walk(s.Body)
		case *Locate:
			walk(s.Body)
		}
	}
	walk(p.Body)
}

// primitive returns what the first rule that matches loop f matched,
// named, or nil.
func primitive(f *For) *Prim {
	for _, r := range Rules {
		if m := r.match(f); m != nil {
			m.Name = r.Name
			return m
		}
	}
	return nil
}
