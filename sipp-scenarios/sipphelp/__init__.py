"""The helpers shared by the run scripts of sipp-scenarios/ and by bench/: sipprun starts SIPp (its
ports, its trace files, a check's verdict line), registering writes the AOR files SIPp reads and
runs REGISTERs and the avalanche. Standard library only.

Importable once sipp-scenarios/ is on the import path: each run script puts it there (it is the
folder above the script's own), bench/run and bench's tests likewise."""
