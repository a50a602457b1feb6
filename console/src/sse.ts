// Server-Sent Events read through fetch (EventSource cannot send an Authorization header): the
// stream is split into messages by blank lines, each with its event name, id and data.
export interface SseMessage {
  event: string;
  id?: string;
  data: string;
}

export class SseParser {
  private buffer = "";
  private pendingCr = "";

  // Feeds decoded text; returns the messages it completed.
  push(text: string): SseMessage[] {
    // A CR at the end may be the first half of a CR LF: it waits for the next chunk.
    this.buffer += this.pendingCr + text;
    this.pendingCr = this.buffer.endsWith("\r") ? "\r" : "";
    if (this.pendingCr) this.buffer = this.buffer.slice(0, -1);
    this.buffer = this.buffer.replace(/\r\n?/g, "\n");
    const messages: SseMessage[] = [];
    let end: number;
    while ((end = this.buffer.indexOf("\n\n")) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const message: SseMessage = { event: "message", data: "" };
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (!line || line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (name === "event") message.event = value;
        else if (name === "id") message.id = value;
        else if (name === "data") data.push(value);
      }
      message.data = data.join("\n");
      if (data.length || message.event !== "message") messages.push(message);
    }
    return messages;
  }
}
