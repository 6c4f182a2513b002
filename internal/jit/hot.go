package jit

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
)

// Loop alignment.
//
// The Go compiler places a loop's first instruction wherever the code
// before it ends, except in a function a profile (PGO) says is hot: there
// it starts a loop header on a new 64-byte line when fewer than 32 bytes of
// the current one remain. A small loop that straddles two lines costs the
// CPU's front end a second fetch per iteration. On the 2-core Intel VM of
// the README, a loop storing a constant into a slice ran 1.85× slower per
// element when it straddled a line, and the same kernel's loops straddled
// in some builds and not in others. So every kernel's speed was a lottery
// on where its loops fell, and a parallel kernel's workers could lose what
// a second goroutine gained: VVA's generated fill on two goroutines took
// 0.97 of its serial kernel's time, and 0.60 with its loops aligned.
//
// hotProfile is therefore the profile the plugin's package is compiled
// with (go build -gcflags=-pgoprofile): every function of the source, its
// methods and its closures, named as the compiler names them, is the
// callee of an equal share of calls from a caller that does not exist. It
// is the preprocessed form of a profile (go tool preprofile's, "GO
// PREPROFILE V1"). A callee marked hot also gets a larger inlining budget,
// but no call site in the package is hot (the caller is not in it), so
// nothing is inlined that would not be without the profile: what changes
// is the loops' alignment.

// hotCaller is the caller of every edge of hotProfile: a name no package
// defines.
const hotCaller = "nablasd.jit.hot"

// hotProfile is the preprocessed profile marking every function of src, a
// package whose import path is pkg, hot (above).
func hotProfile(pkg string, src []byte) ([]byte, error) {
	names, err := funcNames(pkg, src)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("GO PREPROFILE V1\n")
	for _, n := range names {
		fmt.Fprintf(&b, "%s\n%s\n0 1\n", hotCaller, n)
	}
	return b.Bytes(), nil
}

// funcNames are the linker names of src's functions, methods and
// closures in package path pkg: pkg.F, pkg.T.M, pkg.(*T).M, and the
// closures of each, pkg.F.func1, pkg.F.func2, ..., those nested in a
// closure pkg.F.func1.1, numbered in the order they appear, as the
// compiler numbers them.
func funcNames(pkg string, src []byte) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "kernel.go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		name := pkg + "." + fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			name = pkg + "." + receiver(fd.Recv.List[0].Type) + "." + fd.Name.Name
		}
		names = append(names, name)
		names = closureNames(names, name+".func", fd.Body)
	}
	return names, nil
}

// closureNames appends the names of the closures directly in body, prefix
// followed by their number from 1, and of those nested in each, its name
// followed by "." and their number.
func closureNames(names []string, prefix string, body ast.Node) []string {
	n := 0
	ast.Inspect(body, func(x ast.Node) bool {
		lit, ok := x.(*ast.FuncLit)
		if !ok {
			return true
		}
		n++
		name := prefix + strconv.Itoa(n)
		names = append(names, name)
		names = closureNames(names, name+".", lit.Body)
		return false
	})
	return names
}

// receiver is a method's receiver type as the linker writes it: T or (*T),
// without type parameters.
func receiver(e ast.Expr) string {
	star := false
	if s, ok := e.(*ast.StarExpr); ok {
		star, e = true, s.X
	}
	switch x := e.(type) {
	case *ast.IndexExpr:
		e = x.X
	case *ast.IndexListExpr:
		e = x.X
	}
	name := "?"
	if id, ok := e.(*ast.Ident); ok {
		name = id.Name
	}
	if star {
		return "(*" + name + ")"
	}
	return name
}
