import type { Project } from '../store/entities';

/** PostHog's PERSON_DEFAULT_DISPLAY_NAME_PROPERTIES: the person properties a display name is taken from, in order. */
export const PERSON_DEFAULT_DISPLAY_NAME_PROPERTIES: readonly string[] = ['email', 'Email', 'name', 'Name', 'username', 'Username', 'UserName'];

/**
 * The display properties of a project's persons (PostHog's `team.person_display_name_properties or
 * PERSON_DEFAULT_DISPLAY_NAME_PROPERTIES`): the project's list when set and not empty, which replaces the defaults.
 */
export const displayNameProperties = (project: Pick<Project, 'person_display_name_properties'>): readonly string[] =>
  project.person_display_name_properties?.length ? project.person_display_name_properties : PERSON_DEFAULT_DISPLAY_NAME_PROPERTIES;
