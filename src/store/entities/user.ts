import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('users')
export class User {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'text' })
  email!: string;

  @Column({ type: 'text', default: '' })
  name!: string;

  @CreateDateColumn({ type: 'datetime' })
  created_at!: Date;
}
