module github.com/fabvote/fabvote

go 1.26

require (
	github.com/didiercrunch/paillier v0.0.0-20180810105046-753322e473bf // indirect
	github.com/golang-fips/openssl/v2 v2.0.3 // indirect
	github.com/hyperledger/fabric-chaincode-go/v2 v2.0.0 // indirect
	github.com/hyperledger/fabric-contract-api-go/v2 v2.2.0 // indirect
	github.com/hyperledger/fabric-gateway v1.7.0 // indirect
	github.com/klauspost/cpuid/v2 v2.2.3 // indirect
	github.com/miekg/pkcs11 v1.1.1 // indirect
	github.com/minio/sha256-simd v1.0.1 // indirect
	golang.org/x/sys v0.26.0 // indirect
)
