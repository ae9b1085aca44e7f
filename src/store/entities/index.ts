import { PersonalApiKey } from './personal-api-key';
import { Project } from './project';
import { ProjectSecretApiKey } from './project-secret-api-key';
import { User } from './user';

export { PersonalApiKey, Project, ProjectSecretApiKey, User };

export const ENTITIES = [User, Project, PersonalApiKey, ProjectSecretApiKey];
