package gateway

import (
	"context"
	"fmt"

	"github.com/hyperledger/fabric-gateway/pkg/client"
	"google.golang.org/grpc"
)

// backend is the part of fabric-gateway a Conn drives, an interface so
// that the retry and timeout logic can be tested against a fake.
type backend interface {
	evaluate(ctx context.Context, fn string, args [][]byte) ([]byte, error)
	endorse(ctx context.Context, fn string, args [][]byte) (endorsedTx, error)
}

// endorsedTx is an endorsed transaction, ready for ordering.
type endorsedTx interface {
	TransactionID() string
	Result() []byte
	submit(ctx context.Context) (committing, error)
}

// committing is a submitted transaction whose commit status can be awaited.
type committing interface {
	StatusWithContext(ctx context.Context, opts ...grpc.CallOption) (*client.Status, error)
}

// contractBackend is backend on a fabric-gateway contract.
type contractBackend struct{ c *client.Contract }

func (b contractBackend) evaluate(ctx context.Context, fn string, args [][]byte) ([]byte, error) {
	return b.c.EvaluateWithContext(ctx, fn, client.WithBytesArguments(args...))
}

func (b contractBackend) endorse(ctx context.Context, fn string, args [][]byte) (endorsedTx, error) {
	prop, err := b.c.NewProposal(fn, client.WithBytesArguments(args...))
	if err != nil {
		return nil, fmt.Errorf("building proposal: %w", err)
	}
	tx, err := prop.EndorseWithContext(ctx)
	if err != nil {
		return nil, err
	}
	return clientTx{tx}, nil
}

// orgBackend evaluates on peers of one org only.
type orgBackend struct {
	backend
	mspID string
}

// orgEvaluator is a backend other than a fabric-gateway contract (a test
// fake) that takes the org restriction itself, so that it can be seen.
type orgEvaluator interface {
	evaluateInOrg(ctx context.Context, mspID, fn string, args [][]byte) ([]byte, error)
}

func (b orgBackend) evaluate(ctx context.Context, fn string, args [][]byte) ([]byte, error) {
	cb, ok := b.backend.(contractBackend)
	if !ok {
		if oe, ok := b.backend.(orgEvaluator); ok {
			return oe.evaluateInOrg(ctx, b.mspID, fn, args)
		}
		return b.backend.evaluate(ctx, fn, args) // a test fake that has no orgs
	}
	prop, err := cb.c.NewProposal(fn, client.WithBytesArguments(args...), client.WithEndorsingOrganizations(b.mspID))
	if err != nil {
		return nil, fmt.Errorf("building proposal: %w", err)
	}
	return prop.EvaluateWithContext(ctx)
}

type clientTx struct{ *client.Transaction }

func (t clientTx) submit(ctx context.Context) (committing, error) {
	return t.SubmitWithContext(ctx)
}
