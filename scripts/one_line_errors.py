"""The house rule on bad input for the plot scripts: one line naming the file, exit 2, never a traceback."""
import sys


def run(prog, main):
    try:
        main()
    except SystemExit as e:  # sys.exit("message"): the scripts' own one-line refusals, exit 2 as the house rule
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            sys.exit(2)
        raise
    except OSError as e:  # a missing input, a directory, an unwritable output
        print(f"{prog}: {e.filename}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    except ValueError as e:  # json.JSONDecodeError and bad numbers in the input
        print(f"{prog}: {sys.argv[1] if len(sys.argv) > 1 else 'input'}: not ccsim output: {e}", file=sys.stderr)
        sys.exit(2)
