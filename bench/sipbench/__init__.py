"""The benchmark tool behind bench/run: rate search with SIPp against P2PSIP nodes and references."""
