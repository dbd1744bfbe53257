"""The errors dlc raises (re-exported as dlc.CompileError)."""


class CompileError(Exception):
    """MLIR rejected the input; `diagnostics` holds its located messages."""

    def __init__(self, message, diagnostics):
        super().__init__(f"{message}\n{diagnostics}".rstrip())
        self.diagnostics = diagnostics
