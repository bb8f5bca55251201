// A writable the CLI's Output can print to in tests: collects the text, claims to be a terminal or not.
export function textSink(isTTY: boolean): { text: string; isTTY: boolean; write(chunk: string): void } {
  return {
    text: '',
    isTTY,
    write(chunk: string) {
      this.text += chunk;
    },
  };
}
