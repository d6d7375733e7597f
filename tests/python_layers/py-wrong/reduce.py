# Deliberately failing: run() raises, and the harness must report the exception's last line.
class Variant:
    run_waits = False

    def allocate(self, size, setup):
        pass

    def upload(self, problem, stream):
        pass

    def run(self, stream):
        raise ValueError("py-wrong cannot reduce")

    def download(self, out, stream):
        pass
