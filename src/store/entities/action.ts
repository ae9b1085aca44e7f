import { Column, Entity } from 'typeorm';
import { jsonColumn } from '../json-column';
import { ProjectObject } from './project-object';

/** One step of an action (PostHog's ActionStepJSON): the action matches an event that matches any of its steps. */
export interface ActionStep {
  event: string | null;
  properties: unknown[];
  selector: string | null;
  tag_name: string | null;
  text: string | null;
  text_matching: 'contains' | 'regex' | 'exact' | null;
  href: string | null;
  href_matching: 'contains' | 'regex' | 'exact' | null;
  url: string | null;
  url_matching: 'contains' | 'regex' | 'exact' | null;
}

/** A saved event definition of a project (PostHog's Action): an OR of steps, usable as an ActionsNode series. */
@Entity('actions')
export class Action extends ProjectObject {
  @Column({ type: 'text', default: '' })
  description!: string;

  @Column({ ...jsonColumn, default: '[]' })
  steps!: ActionStep[];

  @Column({ ...jsonColumn, default: '[]' })
  tags!: string[];

  @Column({ type: 'boolean', default: false })
  post_to_slack!: boolean;

  @Column({ type: 'text', default: '' })
  slack_message_format!: string;

  @Column({ type: 'datetime', nullable: true })
  pinned_at!: Date | null;
}
