# network/docker.mk — the Docker network for operators (network/docker-compose.yaml).
# Included by the top-level Makefile (ROOT, BIN, BUILD, RUN, GO come from there).
# docs/OPERATORS.md explains operation; network/docker/*.sh do the work.
#
#   make docker-images      fabvote/{runtime,peer,orderer,ballot-cc,tools} from our binaries
#                           (BASE_IMAGE=debian:bookworm-slim to use a registry's base)
#   make docker-artifacts   crypto material, genesis block, node configs, packages (once)
#   make docker-up          images if missing + artifacts + start + channel + chaincode + network.json
#   make docker-down        stop; ledgers (volumes) stay
#   make docker-clean       also remove the volumes and the generated material
#   make docker-test        end to end: dockerd if needed, images, up, 200-voter election, restart, down
#   make docker-perms-test  the generated material is closed to other users (no Docker; part of make test)

DOCKER_DIR_SH := $(ROOT)/network/docker
# What docker-images needs built first; `make docker-test DOCKER_DEPS=` skips it.
DOCKER_DEPS ?= fabric
DOCKER_ENV = ROOT=$(ROOT) BIN=$(BIN) BUILD=$(BUILD) RUN=$(RUN) GO=$(GO)

.PHONY: docker-images docker-artifacts docker-up docker-down docker-clean docker-test docker-compose-check docker-perms-test
TEST_TARGETS += docker-perms-test docker-compose-check

docker-images: $(DOCKER_DEPS)
	$(DOCKER_ENV) $(DOCKER_DIR_SH)/build-images.sh

docker-artifacts: $(DOCKER_DEPS) fabric-ca
	$(DOCKER_ENV) $(DOCKER_DIR_SH)/artifacts.sh generate

docker-up: $(DOCKER_DEPS) fabric-ca
	$(DOCKER_ENV) $(DOCKER_DIR_SH)/dockernet.sh up

docker-down:
	$(DOCKER_ENV) $(DOCKER_DIR_SH)/dockernet.sh down

docker-clean:
	$(DOCKER_ENV) $(DOCKER_DIR_SH)/dockernet.sh clean

# The committed compose file is what `fabnet compose` generates from the
# network's typed topology (network/compose).
docker-compose-check:
	@diff -u $(ROOT)/network/docker-compose.yaml <(cd $(ROOT) && $(GO) run ./network/cmd/fabnet compose) || \
		{ echo "network/docker-compose.yaml is stale: go run ./network/cmd/fabnet compose --out network/docker-compose.yaml"; exit 1; }

docker-test: docker-compose-check $(DOCKER_DEPS) fabric-ca
	$(DOCKER_ENV) $(DOCKER_DIR_SH)/test.sh

# No file of the generated material is open to other users (about 10 s).
docker-perms-test: $(DOCKER_DEPS) fabric-ca
	$(DOCKER_ENV) $(DOCKER_DIR_SH)/perms-test.sh
