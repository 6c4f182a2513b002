package sdql

// Kind is the kind of a lexical token.
type Kind int

// The token kinds.
const (
	EOF Kind = iota
	ILLEGAL
	IDENT // V1', _, beta
	INT   // 42
	REAL  // 4.2, 1e-3

	LPAREN // (
	RPAREN // )
	LBRACE // {
	RBRACE // }
	LBRACK // [
	RBRACK // ]
	COMMA  // ,
	COLON  // :
	ARROW  // ->
	ASSIGN // =
	EQ     // ==
	NEQ    // !=
	LT     // <
	LEQ    // <=
	GT     // >
	GEQ    // >=
	ADD    // +
	SUB    // -
	MUL    // *
	QUO    // /
	LAND   // &&
	LOR    // ||
	keywordBeg
	SUM      // sum
	IN       // in
	LET      // let
	IF       // if
	THEN     // then
	ELSE     // else
	NOT      // not
	TRUE     // true
	FALSE    // false
	ZERO     // zero
	ONEHOT   // onehot
	UNIQUE   // unique
	TENSOR   // tensor
	REALTY   // real
	INTTY    // int
	BOOLTY   // bool
	DENSEINT // dense_int
	keywordEnd
)

var kindNames = [...]string{
	EOF: "end of input", ILLEGAL: "illegal character", IDENT: "identifier", INT: "integer", REAL: "real number",
	LPAREN: "(", RPAREN: ")", LBRACE: "{", RBRACE: "}", LBRACK: "[", RBRACK: "]", COMMA: ",", COLON: ":",
	ARROW: "->", ASSIGN: "=", EQ: "==", NEQ: "!=", LT: "<", LEQ: "<=", GT: ">", GEQ: ">=",
	ADD: "+", SUB: "-", MUL: "*", QUO: "/", LAND: "&&", LOR: "||",
	SUM: "sum", IN: "in", LET: "let", IF: "if", THEN: "then", ELSE: "else", NOT: "not",
	TRUE: "true", FALSE: "false", ZERO: "zero", ONEHOT: "onehot", UNIQUE: "unique",
	TENSOR: "tensor", REALTY: "real", INTTY: "int", BOOLTY: "bool", DENSEINT: "dense_int",
}

// String returns the token's spelling or a description of its kind.
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "token"
}

var keywords = map[string]Kind{}

func init() {
	for k := keywordBeg + 1; k < keywordEnd; k++ {
		keywords[kindNames[k]] = k
	}
}

// IsKeyword reports whether name is a reserved word of the language.
func IsKeyword(name string) bool {
	_, ok := keywords[name]
	return ok
}

// Token is a lexical token with its position and text.
type Token struct {
	Kind Kind
	Pos  Pos
	Text string
	// NewlineBefore is set when a line break separates the token from the
	// previous one (the paper's line form `let x = e` + newline uses it).
	NewlineBefore bool
}
