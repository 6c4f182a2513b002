package pipeline

import (
	"context"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

// The DoFns, combiners, emitters, iterators and the accumulator's coder
// are registered for the workers (the same binary, started by the runner)
// and for running without reflection.
func init() {
	register.DoFn3x1[context.Context, []byte, func([]byte), error](&loadFn{})
	register.DoFn3x1[context.Context, []byte, func([]byte), error](&splitsFn{})
	register.DoFn3x1[context.Context, []byte, func(string, []byte), error](&readGroupsFn{})
	register.DoFn5x1[context.Context, string, func(*[]byte) bool, func(*[]byte) bool, func(int64, []byte), error](&groupStepFn{})
	register.DoFn4x1[context.Context, int64, func(*[]byte) bool, func([]byte), error](&writeShardFn{})
	register.DoFn2x1[context.Context, string, error](&manifestFn{})
	register.DoFn3x1[context.Context, []byte, func(int64, []byte), error](&readBlocksFn{})
	register.DoFn5x1[context.Context, int64, func(*[]byte) bool, func(*[]byte) bool, func([]byte), error](&blockStepFn{})
	register.DoFn2x1[context.Context, []byte, error](&writeResultFn{})
	register.Combiner2[string, []byte](&collectFn{})
	register.Combiner3[*partial, []byte, []byte](&addFn{})
	register.Emitter1[[]byte]()
	register.Emitter2[string, []byte]()
	register.Emitter2[int64, []byte]()
	register.Iter1[[]byte]()
	beam.RegisterCoder(partialType, encodePartial, decodePartial)
}
