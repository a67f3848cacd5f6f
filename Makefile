# `make install PREFIX=/opt/regio`: a release build of Regio installed as a
# relocatable tree (scripts/install.sh says what goes where).
PREFIX ?= /usr/local

.PHONY: install
install:
	scripts/install.sh "$(PREFIX)"
