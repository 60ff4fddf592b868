/** Where a Slack conversation lives: `slack:<team>:<channel>:<thread ts>`. */
export interface SlackPlace {
  team: string;
  channel: string;
  thread: string;
}

export function placeOf(channel: string): SlackPlace {
  const [, team = '', id = '', thread = ''] = channel.split(':');
  return { team, channel: id, thread };
}
